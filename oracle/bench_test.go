package oracle

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
)

// minimizeEntries is the size of the spec BenchmarkOracle minimises.
const minimizeEntries = 20

// BenchmarkOracle (make bench-oracle) times, on hello-standard, one plain
// task run (the oracle under the spec), record ending with its
// verification (two replays at once), the same when the recording lacks
// an execute entry (one repair round more), and verify
// --minimize of a 20-entry spec (the recorded one plus execute entries
// the oracle does not need), and reports each as a ratio to the plain
// run. Run it with -benchtime 1x: every iteration is whole task runs.
func BenchmarkOracle(b *testing.B) {
	api := testAPI(b)
	ctx := context.Background()
	task, root := loadFixture(b, filepath.Join(fixtures, "hello-standard"))
	// Warm the image cache and the binary.
	if _, err := runTask(ctx, api, task, RunOptions{}, runapi.SourceSpec, runapi.AgentOracle, nil); err != nil {
		b.Fatal(err)
	}
	var plain, recordVerify, recordRepair, minimise time.Duration
	for b.Loop() {
		start := time.Now()
		r, err := runTask(ctx, api, task, RunOptions{}, runapi.SourceSpec, runapi.AgentOracle, nil)
		if err != nil || !r.Result.Utility {
			b.Fatalf("plain run: %v %+v", err, r)
		}
		plain += time.Since(start)

		start = time.Now()
		spec, rep, err := Record(ctx, api, task, RecordOptions{Root: root, Verify: true})
		if err != nil || rep.Sufficiency == nil || rep.Sufficiency.Rounds != 1 {
			b.Fatalf("record: %v %+v", err, rep)
		}
		recordVerify += time.Since(start)

		// The same with one repair: the recording lacks an execute entry.
		start = time.Now()
		rec, _, err := Record(ctx, api, task, RecordOptions{Root: root})
		if err != nil {
			b.Fatal(err)
		}
		rec.Required[policy.Execute] = slices.DeleteFunc(rec.Required[policy.Execute], func(p policy.Pattern) bool { return p.String() == "/usr/bin/wc" })
		_, suf, err := MakeSufficient(ctx, api, task, rec, 0, VerifyOptions{Root: root})
		if err != nil || len(suf.Repairs) != 1 {
			b.Fatalf("repair: %v %+v", err, suf)
		}
		recordRepair += time.Since(start)

		big := padSpec(b, spec, root)
		start = time.Now()
		v, err := Verify(ctx, api, task, big, VerifyOptions{Root: root, Minimize: true, Parallel: DefaultParallel})
		if err != nil || !v.OK || v.Minimization == nil || v.Minimization.Replays != minimizeEntries {
			b.Fatalf("minimise: %v %+v", err, v)
		}
		minimise += time.Since(start)
	}
	n := float64(b.N)
	b.ReportMetric(plain.Seconds()/n, "s/plain-run")
	b.ReportMetric(recordVerify.Seconds()/n, "s/record+verify")
	b.ReportMetric(minimise.Seconds()/n, "s/minimize-20")
	b.ReportMetric(recordRepair.Seconds()/n, "s/record+verify+1-repair")
	b.ReportMetric(recordVerify.Seconds()/plain.Seconds(), "record+verify/run")
	b.ReportMetric(recordRepair.Seconds()/plain.Seconds(), "record+verify+1-repair/run")
	b.ReportMetric(minimise.Seconds()/plain.Seconds(), "minimize-20/run")
}

// padSpec adds execute entries of programs in the image until the spec
// has minimizeEntries required entries.
func padSpec(b *testing.B, spec *policy.Spec, root *policy.Root) *policy.Spec {
	out := *spec
	out.Required = policy.Permissions{}
	for _, ax := range policy.Axes {
		out.Required[ax] = append([]policy.Pattern(nil), spec.Required[ax]...)
	}
	have := patternSet(out.Required[policy.Execute])
	for _, name := range []string{"cat", "sort", "head", "tail", "cut", "tr", "ls", "cp", "mv", "mkdir", "rm", "touch",
		"date", "env", "uniq", "basename", "dirname", "tee", "sleep", "stat", "find", "xargs"} {
		if out.Required.Len() == minimizeEntries {
			break
		}
		p := "/usr/bin/" + name
		if _, err := root.Stat(p); err != nil || have[p] {
			continue
		}
		out.Required[policy.Execute] = append(out.Required[policy.Execute], policy.MustPattern(p))
	}
	if out.Required.Len() != minimizeEntries {
		b.Fatalf("could only make a spec of %d entries", out.Required.Len())
	}
	return &out
}
