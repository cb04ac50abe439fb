package permreq

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		access, path, reason string
		want, err            string
	}{
		{"read", "/data/in.txt", "the task reads it", "read /data/in.txt", ""},
		{"write", "/out//x/../y", "output", "write /out/y", ""},
		{"execute", "/usr/bin/python3", "run tests", "execute /usr/bin/python3", ""},
		{"read", "/data/**", "all inputs", "read /data/**", ""},
		{"read", "data/in.txt", "r", "", "not absolute"},
		{"read", "", "r", "", "not absolute"},
		{"read", "/data/*.txt", "r", "", "glob"},
		{"read", "/a/**/b", "r", "", "**"},
		{"delete", "/data", "r", "", "unknown axis"},
		{"network", "example.com:443", "r", "network example.com:443", ""},
		{"network", "Example.COM.:443", "r", "network example.com:443", ""},
		{"network", "*.example.com:443", "r", "", "wildcard"},
		{"network", "example.com:*", "r", "", "wildcard"},
		{"network", "https://example.com/", "r", "", "scheme"},
		{"network", "example.com", "r", "", "port"},
		{"network", "example.com:443", " ", "", "reason is empty"},
		{"read", "/data/in.txt", "  ", "", "reason is empty"},
		{"read", "/data/\x00x", "r", "", "NUL"},
	} {
		r, err := Parse(c.access, c.path, c.reason)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Parse(%q, %q): error %v, want one with %q", c.access, c.path, err, c.err)
			}
			continue
		}
		if err != nil || r.String() != c.want {
			t.Errorf("Parse(%q, %q) = %q, %v; want %q", c.access, c.path, r, err, c.want)
		}
	}
	long := strings.Repeat("é", MaxReasonBytes)
	if r, err := Parse("read", "/x", long); err != nil || len(r.Reason) > MaxReasonBytes || !strings.HasPrefix(long, r.Reason) {
		t.Errorf("a long reason: %d bytes, %v", len(r.Reason), err)
	}
}

func pats(ss ...string) []policy.Pattern {
	var out []policy.Pattern
	for _, s := range ss {
		out = append(out, policy.MustPattern(s))
	}
	return out
}

func req(t *testing.T, access, path string) Request {
	t.Helper()
	r, err := Parse(access, path, "test")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestCoveredAndSensitive(t *testing.T) {
	spec := pats("/data/in.txt", "/src/**", "/etc/*.conf")
	for _, c := range []struct {
		path string
		want bool
	}{
		{"/data/in.txt", true}, {"/data/other", false}, {"/data/**", false},
		{"/src", true}, {"/src/a/b.go", true}, {"/src/a/**", true}, {"/etc/app.conf", true}, {"/etc/**", false},
	} {
		if got := Covered(req(t, "read", c.path), spec); got != c.want {
			t.Errorf("Covered(%s) = %v, want %v", c.path, got, c.want)
		}
	}
	var sens policy.Permissions
	sens[policy.Read] = pats("/root/.ssh/**", "/etc/shadow")
	for _, c := range []struct {
		access, path, want string
	}{
		{"read", "/etc/shadow", "/etc/shadow"}, {"read", "/root/.ssh/id_rsa", "/root/.ssh/**"},
		{"read", "/root/**", "/root/.ssh/**"}, {"read", "/**", "/root/.ssh/**"},
		{"read", "/etc/passwd", ""}, {"write", "/etc/shadow", ""}, {"read", "/root/notes", ""},
	} {
		if got := SensitiveMatch(req(t, c.access, c.path), &sens); got != c.want {
			t.Errorf("SensitiveMatch(%s %s) = %q, want %q", c.access, c.path, got, c.want)
		}
	}
}

// fixture is a task root with a required input, a sensitive file beside
// it and a directory holding both.
func fixture(t *testing.T) (*policy.Root, *policy.Spec) {
	t.Helper()
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "out"), 0o755)
	for _, f := range []string{"data/in.txt", "data/secret.key", "src/main.go"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755)
		os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644)
	}
	root, err := policy.NewRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	spec := &policy.Spec{Sensitive: &policy.Permissions{}}
	spec.Required[policy.Read] = pats("/data/in.txt", "/src/**")
	spec.Required[policy.Write] = pats("/out/result.txt")
	spec.Sensitive[policy.Read] = pats("/data/secret.key")
	return root, spec
}

func TestDeciders(t *testing.T) {
	root, spec := fixture(t)
	for _, c := range []struct {
		decider, access, path, want string
		sensitive, required         bool
	}{
		{"spec", "read", "/data/in.txt", runapi.RequestGranted, false, true},
		{"spec", "read", "/src/**", runapi.RequestGranted, false, true},
		{"spec", "write", "/out/result.txt", runapi.RequestGranted, false, true},
		{"spec", "read", "/data/secret.key", runapi.RequestRefused, true, false},
		// a directory's hierarchy holds the sensitive file: refused as a whole
		{"spec", "read", "/data", runapi.RequestRefused, true, false},
		{"allow", "read", "/data", runapi.RequestRefused, true, false},
		{"spec", "read", "/src/other.go", runapi.RequestFailed, false, true},
		{"spec", "execute", "/data/in.txt", runapi.RequestRefused, false, false},
		{"allow", "execute", "/data/in.txt", runapi.RequestGranted, false, false},
		{"allow", "read", "/data/secret.key", runapi.RequestRefused, true, false},
		{"deny", "read", "/data/in.txt", runapi.RequestRefused, false, true},
		{"spec", "read", "relative", runapi.RequestInvalid, false, false},
	} {
		d, err := NewDecider(c.decider, spec, nil)
		if err != nil {
			t.Fatal(err)
		}
		desk := NewDesk(d, spec, root, policy.PlanOptions{}, Limits{})
		_, rec, g := desk.Ask(context.Background(), c.access, c.path, "because")
		if rec.Decision != c.want || rec.Sensitive != c.sensitive || rec.Required != c.required || (g != nil) != (c.want == runapi.RequestGranted) {
			t.Errorf("%s %s %s: %+v (grant %v); want %s, sensitive %v, required %v", c.decider, c.access, c.path, rec, g != nil, c.want, c.sensitive, c.required)
		}
		if g != nil && (len(g.Rules) == 0 || len(rec.Rules) != len(g.Rules)) {
			t.Errorf("%s %s: a grant without its rules: %+v", c.access, c.path, g)
		}
	}
}

func TestGrantRulesAreTheRequestsOnly(t *testing.T) {
	root, spec := fixture(t)
	g, err := Compile(req(t, "write", "/out/result.txt"), root, policy.PlanOptions{}, spec.Sensitive)
	if err != nil {
		t.Fatal(err)
	}
	// /out/result.txt does not exist: creation rights on its directory,
	// never the sandbox essentials (the loader, /dev/null).
	if len(g.Rules) != 1 || g.Rules[0].Path != "/out" || !g.Rules[0].Dir {
		t.Fatalf("rules %+v", g.Rules)
	}
}

func TestUnknownDecider(t *testing.T) {
	for _, n := range []string{"", "maybe", "ask", "model:", "model:gpt"} {
		if _, err := NewDecider(n, nil, nil); err == nil {
			t.Errorf("decider %q accepted", n)
		}
	}
	if _, err := NewDecider("spec", nil, nil); err == nil {
		t.Error("spec decider without a spec accepted")
	}
}

// slow never answers before its context ends.
type slow struct{}

func (slow) Name() string { return "slow" }
func (slow) Decide(ctx context.Context, _ Request, _ *Grant) Decision {
	<-ctx.Done()
	time.Sleep(10 * time.Millisecond)
	return Decision{Granted: true}
}

func TestDecisionTimeLimit(t *testing.T) {
	root, spec := fixture(t)
	desk := NewDesk(slow{}, spec, root, policy.PlanOptions{}, Limits{Timeout: 20 * time.Millisecond})
	_, rec, g := desk.Ask(context.Background(), "read", "/data/in.txt", "r")
	if g != nil || rec.Decision != runapi.RequestRefused || !strings.Contains(rec.Why, "no decision within") {
		t.Fatalf("%+v", rec)
	}
}

// TestFlood: N+1000 requests, malformed and valid mixed, reach the
// decider at most N times and keep N records; the rest are counted.
func TestFlood(t *testing.T) {
	root, spec := fixture(t)
	d, _ := NewDecider("spec", spec, nil)
	c := &counting{Decider: d}
	desk := NewDesk(c, spec, root, policy.PlanOptions{}, Limits{Max: 8})
	for i := range 1008 {
		path := "/data/in.txt"
		if i%2 == 1 {
			path = "rel"
		}
		desk.Ask(context.Background(), "read", path, strings.Repeat("x", 10000))
	}
	recs, over := desk.Records()
	if len(recs) != 8 || over != 1000 || c.n > 8 {
		t.Fatalf("%d records, %d over the limit, %d decisions", len(recs), over, c.n)
	}
	for _, r := range recs {
		if len(r.Reason) > MaxReasonBytes {
			t.Fatalf("reason of %d bytes kept", len(r.Reason))
		}
	}
}

type counting struct {
	Decider
	n int
}

func (c *counting) Decide(ctx context.Context, r Request, g *Grant) Decision {
	c.n++
	return c.Decider.Decide(ctx, r, g)
}

// fixed answers every request it is asked.
type fixed struct {
	asked *int
	grant bool
}

func (fixed) Name() string { return "model:judge" }
func (f fixed) Decide(context.Context, Request, *Grant) Decision {
	*f.asked++
	return Decision{Granted: f.grant, Why: "judged"}
}

// TestJudgeIsGuarded: a model:MODEL decider never sees a request that
// reaches a sensitive file (refused before), and decides the others.
func TestJudgeIsGuarded(t *testing.T) {
	root, spec := fixture(t)
	asked := 0
	d, err := NewDecider("model:judge", spec, func(m string) (Decider, error) {
		if m != "judge" {
			t.Errorf("model %q", m)
		}
		return fixed{asked: &asked, grant: true}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	desk := NewDesk(d, spec, root, policy.PlanOptions{}, Limits{})
	for _, c := range []struct{ path, want string }{
		{"/data/secret.key", runapi.RequestRefused}, {"/data", runapi.RequestRefused}, {"/data/in.txt", runapi.RequestGranted},
	} {
		if _, rec, _ := desk.Ask(context.Background(), "read", c.path, "r"); rec.Decision != c.want || rec.Decider != "model:judge" {
			t.Errorf("%s: %+v", c.path, rec)
		}
	}
	if asked != 1 {
		t.Errorf("the judge was asked %d times, want 1", asked)
	}
	if c := Ceiling("model:judge", spec); len(c.Get(policy.Read)) != 1 || c.Get(policy.Read)[0].String() != "/**" {
		t.Errorf("ceiling %v", c)
	}
}
