package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/agent"
	"github.com/authbench/authbench/agent/agenttest"
	"github.com/authbench/authbench/agent/modelconfig"
	"github.com/authbench/authbench/internal/testenv"
)

// Bounds a loop keeps whatever its model endpoint sends.
const (
	hostileMaxRSS        = 300 << 20
	hostileMaxTrajectory = 32 << 20
)

// hostileCase is a hostile endpoint, answering request n with reply(n),
// and the loop's options against it.
type hostileCase struct {
	name     string
	stream   bool
	maxTurns int
	reply    func(n int) agenttest.Reply
	want     modelconfig.StopReason
}

func finishReply() agenttest.Reply {
	return agenttest.Reply{ToolCalls: []agenttest.Call{{ID: "f", Name: "finish", Arguments: `{}`}}}
}

// firstThenFinish answers the first request with r, the next with finish.
func firstThenFinish(r agenttest.Reply) func(int) agenttest.Reply {
	return func(n int) agenttest.Reply {
		if n == 0 {
			return r
		}
		return finishReply()
	}
}

var hostileCases = []hostileCase{
	{name: "calls-120k", reply: firstThenFinish(agenttest.HostileManyCalls(120_000, "echo", `{"text":"x"}`)), want: modelconfig.StopFinished},
	{name: "calls-120k-stream", stream: true, reply: firstThenFinish(agenttest.HostileStream(120_000, func(i int) string {
		return fmt.Sprintf(`{"tool_calls":[{"index":%d,"id":"c%d","type":"function","function":{"name":"echo","arguments":"{}"}}]}`, i, i)
	})), want: modelconfig.StopFinished},
	{name: "sparse-indexes", stream: true, reply: firstThenFinish(agenttest.HostileStream(400_000, agenttest.SparseCallDelta(127, "echo"))), want: modelconfig.StopFinished},
	{name: "stream-16mib", stream: true, reply: firstThenFinish(agenttest.HostileStream(4200, agenttest.ArgumentsDelta("echo", strings.Repeat("\x01<", 2048)))), want: modelconfig.StopFinished},
	{name: "endless-stream", stream: true, reply: firstThenFinish(agenttest.HostileStream(-1, agenttest.ContentDelta(strings.Repeat("y", 1000)))), want: modelconfig.StopFinished},
	{name: "turns-10000", maxTurns: 10_000, reply: func(int) agenttest.Reply {
		return agenttest.HostileManyCalls(agent.MaxCallsPerTurn, "echo", `{"text":"`+strings.Repeat("z", 64<<10)+`"}`)
	}, want: modelconfig.StopLimits},
	{name: "malformed-utf8", maxTurns: 10_000, reply: func(int) agenttest.Reply {
		return agenttest.HostileMalformedUTF8(agent.MaxCallsPerTurn, "echo", 200<<10)
	}, want: modelconfig.StopLimits},
}

// hostileOutcome is what the child reports.
type hostileOutcome struct {
	Reason modelconfig.StopReason
	Turns  int
	Err    string
	// PeakRSS is the child's VmHWM in bytes, read at its end (its
	// rusage would count the parent's memory it shared until its exec).
	PeakRSS int64
}

// TestEscapeDaemonHostileModels runs the loop, in a child process of its own, against
// each hostile endpoint (the endpoint runs here): the child's peak RSS
// stays under 300 MB and its trajectory.json under 32 MiB. make
// bench-hostile prints the table.
func TestEscapeDaemonHostileModels(t *testing.T) {
	fmt.Printf("%-20s %-10s %6s %12s %14s\n", "case", "stop", "turns", "peak RSS MB", "trajectory MB")
	for _, c := range hostileCases {
		t.Run(c.name, func(t *testing.T) {
			srv := agenttest.NewFunc(t, func(n int, _ agenttest.Request) agenttest.Reply { return c.reply(n) })
			dir := t.TempDir()
			cmd := exec.Command(os.Args[0], "-test.run=^TestHostileModelChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), "AUTHBENCH_HOSTILE_URL="+srv.URL, "AUTHBENCH_HOSTILE_DIR="+dir,
				fmt.Sprintf("AUTHBENCH_HOSTILE_STREAM=%v", c.stream), fmt.Sprintf("AUTHBENCH_HOSTILE_TURNS=%d", c.maxTurns))
			cmd.Stderr = os.Stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			var o hostileOutcome
			data, err := os.ReadFile(filepath.Join(dir, "outcome.json"))
			if err == nil {
				err = json.Unmarshal(data, &o)
			}
			if err != nil {
				t.Fatalf("outcome: %v\n%s", err, out)
			}
			rss := o.PeakRSS
			st, err := os.Stat(filepath.Join(dir, "trajectory.json"))
			if err != nil {
				t.Fatal(err)
			}
			fmt.Printf("%-20s %-10s %6d %12.1f %14.2f\n", c.name, o.Reason, o.Turns, float64(rss)/(1<<20), float64(st.Size())/(1<<20))
			if o.Reason != c.want {
				t.Errorf("stop %s (%s), want %s", o.Reason, o.Err, c.want)
			}
			if rss > hostileMaxRSS*raceMemoryFactor {
				t.Errorf("peak RSS %d MB, over %d MB", rss>>20, hostileMaxRSS*raceMemoryFactor>>20)
			}
			if st.Size() > hostileMaxTrajectory {
				t.Errorf("trajectory.json %d bytes, over %d", st.Size(), hostileMaxTrajectory)
			}
			var traj agent.Trajectory
			if data, err := os.ReadFile(filepath.Join(dir, "trajectory.json")); err != nil || json.Unmarshal(data, &traj) != nil {
				t.Errorf("trajectory.json is not JSON: %v", err)
			}
			for _, s := range traj.Steps {
				if len(s.ToolCalls) > agent.MaxCallsPerTurn {
					t.Errorf("step %d holds %d tool calls", s.StepID, len(s.ToolCalls))
				}
			}
		})
	}
}

// TestHostileModelChild is the child of TestEscapeDaemonHostileModels: it runs the
// loop against AUTHBENCH_HOSTILE_URL and writes its outcome and
// trajectory to AUTHBENCH_HOSTILE_DIR. Without them it has nothing to do.
func TestHostileModelChild(t *testing.T) {
	url, dir := os.Getenv("AUTHBENCH_HOSTILE_URL"), os.Getenv("AUTHBENCH_HOSTILE_DIR")
	if url == "" || dir == "" {
		t.Skip("the child of TestEscapeDaemonHostileModels")
	}
	cfg := config(url, os.Getenv("AUTHBENCH_HOSTILE_STREAM") == "true")
	cfg.MaxRetries = -1
	fmt.Sscan(os.Getenv("AUTHBENCH_HOSTILE_TURNS"), &cfg.MaxTurns)
	echo := agent.Tool{Name: "echo", Run: func(_ context.Context, args json.RawMessage) (agent.Observation, error) {
		var a struct{ Text string }
		_ = json.Unmarshal(args, &a)
		return agent.Observation{Text: a.Text, Extra: map[string]any{"start_ns": 1, "end_ns": 2}}, nil
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out := (&agent.Loop{Config: cfg, Tools: []agent.Tool{echo, finishTool()}}).Run(ctx, "sys", "go")
	if err := out.Trajectory.WriteFile(filepath.Join(dir, "trajectory.json")); err != nil {
		t.Fatal(err)
	}
	o := hostileOutcome{Reason: out.Reason, Turns: out.Turns, PeakRSS: testenv.PeakRSS(t)}
	if out.Err != nil {
		o.Err = out.Err.Error()
	}
	data, _ := json.Marshal(o)
	if err := os.WriteFile(filepath.Join(dir, "outcome.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}
