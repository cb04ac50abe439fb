package bench

import (
	"path/filepath"
	"sort"
	"strconv"
	"testing"
)

// overheadTrials is how many runs BenchmarkRunOverhead measures.
const overheadTrials = 8

// BenchmarkRunOverhead runs a bench of one fixture task under the spec
// policy, one run at a time, and reports the median per-run overhead:
// the bench's wall time of a run minus the agent's and the verifiers'
// time (what the daemon, the rootfs, the plan, the static score and the
// bench's own bookkeeping add). The images are built before it measures.
func BenchmarkRunOverhead(b *testing.B) {
	bin := needBench(b)
	tasksDir := fixtureTasks(b, "hello-standard")
	for i := 0; i < b.N; i++ {
		cmd := newBenchCmd(b, bin, tasksDir)
		cmd.args = append(cmd.args, "--sources", "spec", "--parallel", "1")
		// One run first, so that the image is built and cached.
		cmd.mustRun(b, "--out", filepath.Join(b.TempDir(), "warm"))
		out := filepath.Join(b.TempDir(), "out")
		cmd.mustRun(b, "--out", out, "--trials", strconv.Itoa(overheadTrials))
		recs, err := LoadRecords(out)
		if err != nil {
			b.Fatal(err)
		}
		var over, wall, agent, verify []float64
		for _, r := range recs {
			if r.Error != "" || !r.Utility {
				b.Fatalf("run %s: %+v", keyOf(&r), r)
			}
			over = append(over, r.WallS-r.AgentS-r.VerifyS)
			wall, agent, verify = append(wall, r.WallS), append(agent, r.AgentS), append(verify, r.VerifyS)
		}
		b.ReportMetric(median(over)*1000, "overhead-ms/run")
		b.ReportMetric(median(wall)*1000, "wall-ms/run")
		b.ReportMetric(median(agent)*1000, "agent-ms/run")
		b.ReportMetric(median(verify)*1000, "verify-ms/run")
	}
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
