package bench

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/tasks"
	"github.com/authbench/authbench/trial"
	"github.com/authbench/authbench/verdict"
)

// TestWantsRequest: the oracle asks after a failure that exposed
// nothing, the shortcut only when the policy blocked it; an attempt that
// passed, exposed a file or could not be carried out asks for nothing.
func TestWantsRequest(t *testing.T) {
	yes := true
	oracle, shortcut := trial.Identity{Agent: "oracle"}, trial.Identity{Agent: "shortcut"}
	for _, c := range []struct {
		name string
		r    trial.Record
		asks bool
	}{
		{"oracle failed", trial.Record{Identity: oracle, Diagnosis: trial.Diagnosis{Primary: verdict.ClassReadInsufficient}}, true},
		{"oracle passed", trial.Record{Identity: oracle, Verdicts: trial.Verdicts{Utility: true}}, false},
		{"oracle exposed", trial.Record{Identity: oracle, Verdicts: trial.Verdicts{Utility: true, TracedExposure: true}}, false},
		{"run error", trial.Record{Identity: oracle, RunEnd: trial.RunEnd{Error: "no image"}}, false},
		{"shortcut blocked", trial.Record{Identity: shortcut, Diagnosis: trial.Diagnosis{Primary: verdict.ClassAttackBlocked}}, true},
		{"shortcut exposed", trial.Record{Identity: shortcut, Verdicts: trial.Verdicts{Attack: &yes}, Diagnosis: trial.Diagnosis{Primary: verdict.ClassSensitiveExposure}}, false},
	} {
		if why := wantsRequest(&c.r); (why == "") != c.asks {
			t.Errorf("%s: %q, want asks %v", c.name, why, c.asks)
		}
	}
}

// TestWithoutGrant: the policy before a grant lacks exactly its entry
// (the same entry on another axis stays) and pol is not changed.
func TestWithoutGrant(t *testing.T) {
	pol := testPolicy(t, `{"read":["/app/in.txt","/app/x"],"write":["/app/in.txt"],"execute":[]}`)
	got := withoutGrant(pol, grant{policy.Read, "/app/in.txt"})
	if r, w := got.Get(policy.Read), got.Get(policy.Write); len(r) != 1 || r[0].String() != "/app/x" || len(w) != 1 || len(pol.Get(policy.Read)) != 2 {
		t.Fatalf("without: read %v write %v; pol read %v", r, w, pol.Get(policy.Read))
	}
}

// TestCheckRequester: the oracle's requests need the task images (an
// embedded bench); a model agent's and a bench without requests do not.
func TestCheckRequester(t *testing.T) {
	root := func(context.Context, *tasks.Task) (*policy.Root, error) { return nil, nil }
	for _, c := range []struct {
		cfg  Config
		o    Options
		fail bool
	}{
		{Config{Agent: "oracle", Requests: "spec"}, Options{}, true},
		{Config{Agent: "oracle", Requests: "spec"}, Options{ImageRoot: root}, false},
		{Config{Agent: "openai:m", Requests: "spec"}, Options{}, false},
		{Config{Agent: "oracle"}, Options{}, false},
	} {
		if err := c.cfg.checkRequester(c.o); (err != nil) != c.fail || err != nil && !strings.Contains(err.Error(), "--socket") {
			t.Errorf("%+v: %v, want fail %v", c.cfg, err, c.fail)
		}
	}
}

// TestRequesterWhat: a denial of a path the policy lacks asks for it (its
// real path); a refused exec of a "#!" script the policy holds asks for
// the interpreter its "#!" line names in the task image; with that held
// too there is nothing to ask for.
func TestRequesterWhat(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"usr/local/bin/tool": "#!/usr/bin/dash\necho hi\n", "usr/bin/dash": "\x7fELF"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	root, err := policy.NewRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	b := &bencher{o: Options{ImageRoot: func(context.Context, *tasks.Task) (*policy.Root, error) { return root, nil }}}
	q := &requester{b: b, t: &tasks.Task{Name: "x"}, granted: map[string]bool{},
		pol: testPolicy(t, `{"read":[],"write":[],"execute":["/usr/local/bin/tool"]}`)}
	ctx := context.Background()
	if a, p, _ := q.what(ctx, &audit.Denial{Op: "open", Axis: "read", Path: "/data/link", Real: "/data/in.txt"}); a != "read" || p != "/data/in.txt" {
		t.Errorf("a missing read: %s %s", a, p)
	}
	held := &audit.Denial{Op: "exec", Axis: "execute", Path: "/usr/local/bin/tool"}
	if a, p, why := q.what(ctx, held); a != "execute" || p != "/usr/bin/dash" || !strings.Contains(why, "interpreter") {
		t.Errorf("a held script: %s %s (%s)", a, p, why)
	}
	q.granted["execute /usr/bin/dash"] = true
	if a, _, why := q.what(ctx, held); a != "" || !strings.Contains(why, "refused it again") {
		t.Errorf("interpreter granted already: %s (%s)", a, why)
	}
}
