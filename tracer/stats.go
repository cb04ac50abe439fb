package tracer

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/authbench/authbench/tracer/trace"
)

// Counts aggregates events for the human summary of a trace: counts per
// operation and axis, the most accessed paths and the failed accesses.
type Counts struct {
	// ByOp counts events per operation.
	ByOp map[trace.Op]int
	// ByAxis counts events per permission axis (not AxisNone).
	ByAxis map[trace.Axis]int
	paths  map[string]int
	failed map[failure]int
	total  int
}

type failure struct {
	op    trace.Op
	path  string
	errno string
}

// NewCounts returns an empty aggregate.
func NewCounts() *Counts {
	return &Counts{ByOp: map[trace.Op]int{}, ByAxis: map[trace.Axis]int{}, paths: map[string]int{}, failed: map[failure]int{}}
}

// Add counts one event.
func (c *Counts) Add(ev *trace.Event) {
	c.total++
	c.ByOp[ev.Op]++
	if ev.Axis != trace.AxisNone {
		c.ByAxis[ev.Axis]++
	}
	if ev.Path == "" {
		return
	}
	c.paths[ev.Path]++
	if ev.Failed() {
		c.failed[failure{ev.Op, ev.Path, ev.Errno}]++
	}
}

// topN is how many paths and failures the summary lists.
const topN = 10

// WriteText writes the human summary.
func (c *Counts) WriteText(w io.Writer, sum trace.Summary) error {
	var b strings.Builder
	fmt.Fprintf(&b, "trace: %d events, %d lost", sum.Events, sum.Lost)
	if sum.Lost > 0 {
		b.WriteString(" (the trace is INCOMPLETE: raise --ring-size)")
	}
	b.WriteString("\n")
	if sum.Running > 0 {
		fmt.Fprintf(&b, "trace: %d processes of the tree were still running at the end and were not traced further\n", sum.Running)
	}
	b.WriteString("by operation:")
	for _, op := range sortedKeys(c.ByOp) {
		fmt.Fprintf(&b, " %s=%d", op, c.ByOp[op])
	}
	b.WriteString("\nby axis:")
	for _, ax := range []trace.Axis{trace.AxisRead, trace.AxisWrite, trace.AxisExecute} {
		fmt.Fprintf(&b, " %s=%d", ax, c.ByAxis[ax])
	}
	b.WriteString("\ntop paths:\n")
	for _, p := range top(c.paths, topN) {
		fmt.Fprintf(&b, "  %7d  %s\n", c.paths[p], strconv.Quote(p)[1:len(strconv.Quote(p))-1])
	}
	fails := top(c.failed, len(c.failed))
	denied := 0
	for _, f := range fails {
		if f.errno == "EACCES" || f.errno == "EPERM" {
			denied += c.failed[f]
		}
	}
	fmt.Fprintf(&b, "failed accesses: %d distinct (%d denied with EACCES/EPERM)\n", len(fails), denied)
	// Denials first, then the most frequent failures.
	slices.SortStableFunc(fails, func(x, y failure) int {
		return cmp.Compare(rankErrno(x.errno), rankErrno(y.errno))
	})
	for i, f := range fails {
		if i == 2*topN {
			fmt.Fprintf(&b, "  ... %d more\n", len(fails)-i)
			break
		}
		fmt.Fprintf(&b, "  %7d  %-8s %-7s %s\n", c.failed[f], f.op, f.errno, strconv.Quote(f.path))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func rankErrno(e string) int {
	if e == "EACCES" || e == "EPERM" {
		return 0
	}
	return 1
}

func sortedKeys[K ~string, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// top returns up to n keys of m by descending count.
func top[K comparable](m map[K]int, n int) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b K) int {
		if c := cmp.Compare(m[b], m[a]); c != 0 {
			return c
		}
		return cmp.Compare(fmt.Sprint(a), fmt.Sprint(b))
	})
	if len(keys) > n {
		keys = keys[:n]
	}
	return keys
}
