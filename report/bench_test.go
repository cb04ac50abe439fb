package report

import (
	"fmt"
	"io"
	"testing"

	"github.com/authbench/authbench/trial"
)

// suiteRecords is a bench the size of the built-in suite: 20 standard and
// 20 sensitive tasks, four sources, three trials, plus the shortcut.
func suiteRecords() []trial.Record {
	var rs []trial.Record
	for i := range 40 {
		dataset := DatasetStandard
		if i%2 == 1 {
			dataset = DatasetSensitive
		}
		task := fmt.Sprintf("task-%02d", i)
		for n := 1; n <= 3; n++ {
			for _, src := range []string{"unconstrained", "spec", "trace", "gen:heuristic"} {
				r := run(task, dataset, src, "oracle", n)
				if src == "gen:heuristic" && (i+n)%3 == 0 {
					r = failed(r, ClassOrder[(i+n)%6], "openat read /x")
				}
				rs = append(rs, r)
			}
			if dataset == DatasetSensitive {
				rs = append(rs, exposed(run(task, dataset, "unconstrained", "shortcut", n)))
			}
		}
	}
	return rs
}

func BenchmarkBuild(b *testing.B) {
	rs := suiteRecords()
	for b.Loop() {
		Build(rs, Options{})
	}
}

func BenchmarkHTML(b *testing.B) {
	rep := Build(suiteRecords(), Options{})
	for b.Loop() {
		if err := rep.HTML(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMarkdown(b *testing.B) {
	rep := Build(suiteRecords(), Options{})
	for b.Loop() {
		if err := rep.Markdown(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
