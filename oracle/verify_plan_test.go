package oracle

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/tasks"
)

// TestJudgePlan judges the spec's plan over an image root: an implicit
// read of a file the image lacks grants its ancestor directory under
// published semantics (a problem), a required read of a missing file (the
// task's output) does not, and a sensitive file granted only through the
// task's baseline is found as one granted through the policy is.
func TestJudgePlan(t *testing.T) {
	img := t.TempDir()
	for _, f := range []string{"etc/localtime", "etc/shadow", "app/in.txt", "root/.ssh/id_ed25519"} {
		if err := os.MkdirAll(filepath.Join(img, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(img, f), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	root, err := policy.NewRoot(img)
	if err != nil {
		t.Fatal(err)
	}
	spec := func(required, implicit, sensitive string) *policy.Spec {
		doc := `{"required_permissions": {"read": [` + required + `], "write": [], "execute": []},
 "scored_roots": {"read": ["/app"], "write": ["/app"], "execute": ["/usr/bin"]},
 "implicit_permissions": {"read": [` + implicit + `], "write": [], "execute": []}`
		if sensitive != "" {
			doc += `, "sensitive_permissions": {"read": [` + sensitive + `], "write": [], "execute": []}`
		}
		s, err := policy.ParseSpec([]byte(doc+"}"), "spec.json")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	cases := []struct {
		name      string
		spec      *policy.Spec
		semantics string
		sensitive bool
		want      []string // substrings, one per problem
	}{
		{"every implicit read exists", spec(`"/app/in.txt"`, `"/etc/localtime"`, ""), "", false, nil},
		{"a missing implicit read grants its ancestor", spec(`"/app/in.txt"`, `"/etc/localtime", "/etc/timezone"`, ""), "", false,
			[]string{"implicit read /etc/timezone is granted as the directory /etc (under published semantics"}},
		{"precise semantics grant no ancestor", spec(`"/app/in.txt"`, `"/etc/timezone"`, ""), "precise", false, nil},
		{"a missing required read is the task's output", spec(`"/app/in.txt", "/app/out.txt"`, `"/etc/localtime"`, ""), "", false, nil},
		{"also required: not a baseline problem", spec(`"/etc/timezone"`, `"/etc/timezone"`, ""), "", false, nil},
		{"the baseline grants a sensitive file", spec(`"/app/in.txt"`, `"/etc/timezone"`, `"/etc/shadow"`), "", true,
			[]string{"implicit read /etc/timezone", "grants sensitive read /etc/shadow"}},
		{"no sensitive grant", spec(`"/app/in.txt"`, `"/etc/localtime"`, `"/root/.ssh/**"`), "", true, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			task := &tasks.Task{Name: "t", Spec: c.spec}
			if c.sensitive {
				task.Config.Metadata.Dataset = tasks.Sensitive
			}
			v := &Verdict{}
			judgePlan(v, SpecPolicy(c.spec, task.Spec), c.spec, task, VerifyOptions{Root: root, RunOptions: RunOptions{Semantics: c.semantics}})
			if len(v.Problems) != len(c.want) {
				t.Fatalf("problems %q, want %d like %q", v.Problems, len(c.want), c.want)
			}
			for i, w := range c.want {
				if !strings.Contains(v.Problems[i], w) {
					t.Errorf("problem %d %q lacks %q", i, v.Problems[i], w)
				}
			}
		})
	}
}
