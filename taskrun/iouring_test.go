package taskrun

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/env/imagemeta"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tasks"
	"github.com/authbench/authbench/tracer/trace"
)

// TestIOUringOpenIsNeverInvisible: an agent that opens a file with
// IORING_OP_OPENAT leaves that open in the trace when io_uring is
// available (unconstrained), and under a policy (the default seccomp
// profile refuses io_uring_setup) its fallback to a plain open is traced.
// Either way the file's access is never absent with lost = 0.
func TestIOUringOpenIsNeverInvisible(t *testing.T) {
	setup(t)
	task, err := tasks.Load(filepath.Join("testdata", "io-uring"))
	if err != nil {
		t.Fatal(err)
	}
	const note = "/app/secret-note.txt"
	for _, tc := range []struct {
		source      string
		wantUring   bool // the open is an io_uring submission
		wantPlain   bool // the open is a plain traced open (the fallback)
		wantSetupOK bool
	}{
		{runapi.SourceUnconstrained, true, false, true},
		{runapi.SourceSpec, false, true, false},
	} {
		t.Run(tc.source, func(t *testing.T) {
			dir := t.TempDir()
			res, err := Run(t.Context(), Options{Task: task, Source: tc.source, Agent: runapi.AgentOracle, Self: testSelf,
				Images: testImages(), Builder: env.NewBuilder(imagemeta.Buildah, testImages()), Tracer: testTr, Dir: dir})
			if err != nil || res.Error != "" || !res.Utility {
				t.Fatalf("run: %v; result %+v", err, res)
			}
			if res.LostEvents != 0 {
				t.Fatalf("%d events lost", res.LostEvents)
			}
			var uring, plain, setupOK, setupFailed bool
			for _, ev := range readEvents(t, filepath.Join(dir, runapi.FileEvents)) {
				switch {
				case ev.Op == trace.OpURingSetup:
					setupOK, setupFailed = setupOK || !ev.Failed(), setupFailed || ev.Failed()
				case ev.Op == trace.OpOpen && ev.Path == note && !ev.Failed():
					if ev.URing {
						uring = true
					} else {
						plain = true
					}
				}
			}
			if uring != tc.wantUring || plain != tc.wantPlain || setupOK != tc.wantSetupOK || setupFailed == tc.wantSetupOK {
				t.Fatalf("open of %s: io_uring %v plain %v, io_uring_setup ok %v failed %v; want io_uring %v plain %v setup ok %v",
					note, uring, plain, setupOK, setupFailed, tc.wantUring, tc.wantPlain, tc.wantSetupOK)
			}
		})
	}
}

// readEvents reads an events.jsonl file (audit.ReadLog).
func readEvents(t *testing.T, path string) []trace.Event {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []trace.Event
	if _, err := audit.ReadLog(f, func(ev *trace.Event) error {
		out = append(out, *ev)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}
