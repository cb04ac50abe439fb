package oracle

import (
	"sort"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/tracer/trace"
)

// Learned is the policy one or more traced runs of a command needed
// (authbench exec --learn), and how it was made.
type Learned struct {
	// Policy holds every entry some run needed, compacted as recordings
	// are (Compact), with what the baseline grants left out.
	Policy *policy.Policy `json:"policy"`
	// Compactions are the compaction rules that applied.
	Compactions []Compaction `json:"compactions,omitempty"`
	// Nondeterministic are entries only some runs needed (all kept: a
	// learnt policy must let every run of the command through).
	Nondeterministic []Nondeterministic `json:"nondeterministic,omitempty"`
	// Baseline counts, per axis, the accesses the baseline covered.
	Baseline [len(policy.Axes)]int `json:"baseline_accesses"`
}

// learnRoots are the roots of a learnt policy: the whole tree on every
// axis (compaction never widens to "/" itself).
var learnRoots = func() policy.Permissions {
	var p policy.Permissions
	for _, ax := range policy.Axes {
		p[ax] = []policy.Pattern{policy.MustPattern("/")}
	}
	return p
}()

// Learn derives the policy the traced runs needed: each run's successful
// accesses (Derive) outside the baseline, its directory listings of "/"
// dropped, compacted (Compact), and the runs' entries united. env
// resolves names in the tree the runs saw (the host: RootEnv{"/"}).
func Learn(runs [][]trace.Event, env Env, baseline policy.Permissions) (*Learned, error) {
	out := &Learned{}
	perRun := make([][len(policy.Axes)][]string, len(runs))
	logs := map[string]*Compaction{}
	for i, events := range runs {
		acc := Derive(events, env)
		in := CompactInput{Created: acc.Created, Removed: acc.Removed, Roots: learnRoots}
		for _, ax := range policy.Axes {
			f := FilterPaths(acc.Sorted(ax), learnRoots.Get(ax), baseline.Get(ax), env)
			in.Paths[ax] = f.Kept
			out.Baseline[ax] += len(f.Implicit)
			if ax == policy.Read {
				in.Paths[ax], _ = DropRootListings(f.Kept, acc.Listed, learnRoots.Get(ax))
			}
		}
		var log []Compaction
		perRun[i], log = Compact(in)
		addCompactions(logs, log)
	}
	merged, nd := Merge(perRun)
	for _, n := range nd {
		if !n.Kept {
			ax, _ := policy.ParseAxis(n.Axis)
			merged[ax] = append(merged[ax], n.Entry)
		}
	}
	for i := range nd {
		nd[i].Kept = true
	}
	out.Nondeterministic = nd
	for _, c := range logs {
		c.From = sortedKeys(boolKeysOf(c.From))
		out.Compactions = append(out.Compactions, *c)
	}
	sort.Slice(out.Compactions, func(i, j int) bool { return out.Compactions[i].To < out.Compactions[j].To })
	out.Policy = &policy.Policy{Source: "learned"}
	for _, ax := range policy.Axes {
		list := append([]string{}, merged[ax]...)
		sort.Strings(list)
		ps, err := patterns(list)
		if err != nil {
			return nil, err
		}
		out.Policy.Permissions[ax] = ps
	}
	return out, nil
}

// WithoutSandbox drops the events of the sandbox's own programs (a
// bare-host exec's tree starts as sandbox-init, which starts its helpers,
// before it becomes the command): a process's events count from its
// first exec of another program on, and a process that has not exec'd
// yet is counted as its parent is. programs are the sandbox's binaries
// (their realpaths).
func WithoutSandbox(events []trace.Event, programs []string) []trace.Event {
	isSandbox := map[string]bool{}
	for _, p := range programs {
		isSandbox[p] = true
	}
	sandboxed := map[int]bool{} // by tgid: its image is a sandbox program
	out := make([]trace.Event, 0, len(events))
	for _, ev := range events {
		in, known := sandboxed[ev.TGID]
		if !known {
			in = sandboxed[ev.PPID]
			sandboxed[ev.TGID] = in
		}
		if ev.Op == trace.OpExec && ev.Ret == 0 {
			prog := ev.Real
			if prog == "" {
				prog = ev.Path
			}
			in = isSandbox[prog] || isSandbox[ev.Path]
			sandboxed[ev.TGID] = in
		}
		if !in {
			out = append(out, ev)
		}
	}
	return out
}
