package taskrun

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/authbench/authbench/agent/agenttest"
	"github.com/authbench/authbench/agent/modelconfig"
	"github.com/authbench/authbench/runapi"
)

// BenchmarkModelAgentToolCall measures a model agent's cost per tool
// call: the loop (request, response, trajectory) plus the round trip to
// the toolbox in the confined, traced container and the work of the call
// (a shell command that execs wc, then a read_file), with a scripted model
// that answers at once. It runs one task run of 100×b.N calls (use
// -benchtime=1x) and reports the median and 90th percentile time between
// two model requests.
func BenchmarkModelAgentToolCall(b *testing.B) {
	setup(b)
	task := fixture(b, "hello-standard")
	n := 100 * b.N
	srv := agenttest.NewFunc(b, func(i int, _ agenttest.Request) agenttest.Reply {
		switch {
		case i >= n:
			return finish("done")
		case i%2 == 0:
			return calls(shellCall(fmt.Sprint("s", i), "wc -l < /app/input.txt"))
		default:
			return calls(toolCall(fmt.Sprint("r", i), "read_file", map[string]any{"path": "/app/input.txt"}))
		}
	})
	cfg := modelconfig.Config{BaseURL: srv.URL, Model: "bench", MaxTurns: n + 1}
	b.ResetTimer()
	res, err := runWith(b, Options{Task: task, Source: runapi.SourceSpec, Agent: "openai:bench", Model: &cfg, Dir: b.TempDir()})
	b.StopTimer()
	if err != nil || res.AgentStopReason != string(modelconfig.StopFinished) {
		b.Fatalf("run: %v (stop %q: %s)", err, res.AgentStopReason, res.AgentError)
	}
	reqs := srv.Requests()
	var all, shell, read []float64
	for i := 1; i < len(reqs); i++ {
		ms := float64(reqs[i].Time.Sub(reqs[i-1].Time)) / float64(time.Millisecond)
		all = append(all, ms)
		if i%2 == 1 {
			shell = append(shell, ms)
		} else {
			read = append(read, ms)
		}
	}
	b.ReportMetric(quantile(all, 0.5), "ms/call-median")
	b.ReportMetric(quantile(all, 0.9), "ms/call-p90")
	b.ReportMetric(quantile(shell, 0.5), "ms/shell-median")
	b.ReportMetric(quantile(read, 0.5), "ms/read_file-median")
}

func quantile(v []float64, q float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1))]
}
