package explore

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/env/imagemeta"
	"github.com/authbench/authbench/taskrun"
)

// BenchmarkExploreOverhead measures a generation without a model on the
// hello-standard image (built once, cached): a `cmd:` generator that makes
// 0 or 20 inspection calls (each one exec of cat) and prints a policy,
// end to end through Run: fresh rootfs, generation plan, gated
// container, trace, the calls, teardown. Reported as medians (ms):
// total, and the container's set-up (rootfs ready → the generator's
// exec). Target: total ≤ 100 ms + 5 ms per call; the floor of a bare
// container round trip is env's BenchmarkRunSetup (round-trip-ms).
func BenchmarkExploreOverhead(b *testing.B) {
	for _, calls := range []int{0, 20} {
		b.Run(fmt.Sprintf("calls=%d", calls), func(b *testing.B) {
			setup(b)
			task, images := fixture(b, "hello-standard"), testImages()
			cmd := fmt.Sprintf(`i=0; while [ $i -lt %d ]; do cat /app/input.txt >/dev/null; i=$((i+1)); done; echo '{"read": [], "write": [], "execute": []}'`, calls)
			o := Options{Options: taskrun.Options{Task: task, Self: testSelf, Images: images, Builder: env.NewBuilder(imagemeta.Buildah, images),
				Tracer: testTr}, Command: cmd, Input: "x", Timeout: time.Minute}
			var total, setup []time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				o.Dir = b.TempDir()
				start := time.Now()
				x, err := Run(context.Background(), o)
				if err != nil || x.ExitCode != 0 {
					b.Fatalf("explore: %v %+v", err, x)
				}
				total = append(total, time.Since(start))
				setup = append(setup, time.Duration(x.SetupMS*float64(time.Millisecond)))
			}
			b.ReportMetric(medianMS(total), "total-ms")
			b.ReportMetric(medianMS(setup), "setup-ms")
		})
	}
}

func medianMS(ds []time.Duration) float64 {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s) == 0 {
		return 0
	}
	return float64(s[len(s)/2]) / float64(time.Millisecond)
}
