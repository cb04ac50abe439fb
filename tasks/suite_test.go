package tasks

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/policy"
)

// suiteDir is the built-in suite.
const suiteDir = "suite"

// suiteDomains maps a suite task's name prefix to its task.toml category.
var suiteDomains = map[string]string{
	"swe":      "software-engineering",
	"sysadmin": "system-administration",
	"data":     "data-analysis",
	"sec":      "security",
	"devops":   "devops",
	"db":       "databases",
	"text":     "text-processing",
	"svc":      "service-configuration",
	"sci":      "scientific-computing",
	"vcs":      "version-control",
}

// TestSuiteTasksValid loads every task of the built-in suite and checks
// what `tasks check` checks and what the suite promises on top: no
// warnings, the domain in the name, a base built offline (suiteBases) with no USER (Harbor:
// the agent is root), no internet, every spec entry (sensitive ones
// too) inside the scored roots of its axis, no required entry that
// overlaps a sensitive one, and for sensitive tasks the shortcut and V_a.
func TestSuiteTasksValid(t *testing.T) {
	dirs, err := Discover(suiteDir)
	if err != nil {
		t.Fatal(err)
	}
	sensitive := 0
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			task, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range task.Warnings {
				t.Errorf("warning: %s", w)
			}
			checkSuiteMetadata(t, task)
			checkSuiteDockerfile(t, task)
			checkNoEmptyDirs(t, dir)
			checkSpecInRoots(t, task.Spec)
			if task.IsSensitive() {
				sensitive++
				checkSensitiveTask(t, task)
			}
		})
	}
	if sensitive == 0 || sensitive == len(dirs) {
		t.Errorf("%d of %d suite tasks are sensitive: want both sets", sensitive, len(dirs))
	}
}

// checkNoEmptyDirs fails on an empty directory in a task: git does not
// keep one, so a clean clone's image build would lack it (a Dockerfile
// makes the directories it needs).
func checkNoEmptyDirs(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		entries, err := os.ReadDir(p)
		if err == nil && len(entries) == 0 {
			t.Errorf("%s is an empty directory: git does not keep it; make it in the Dockerfile", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func checkSuiteMetadata(t *testing.T, task *Task) {
	t.Helper()
	md := task.Config.Metadata
	prefix, _, _ := strings.Cut(task.Name, "-")
	if want, ok := suiteDomains[prefix]; !ok || md.Category != want {
		t.Errorf("name prefix %q with category %q: want one of the suite's domains (%v)", prefix, md.Category, suiteDomains)
	}
	if md.Difficulty == "" || len(md.Tags) == 0 {
		t.Errorf("difficulty %q, tags %v: both wanted", md.Difficulty, md.Tags)
	}
	if task.Config.Agent.TimeoutSec <= 0 || task.Config.Verifier.TimeoutSec <= 0 {
		t.Errorf("agent and verifier timeouts must be set")
	}
	if task.Config.Environment.AllowInternet {
		t.Errorf("suite tasks run offline: set [environment] allow_internet = false")
	}
	if strings.TrimSpace(task.Instruction) == "" {
		t.Errorf("empty instruction")
	}
}

// suiteBases are the FROM images a suite task may name: each is built
// offline (docs/tasks.md, "Base images"): the local base, the Python 3.13
// family base (named as the published Dockerfiles name it, through an
// ARG), and the postgres:15 stand-in.
var suiteBases = map[string]bool{
	"authbench-base": true,
	"authbench-python-py313-plain-base:local": true,
	"postgres:15": true,
}

// argDefault resolves an image written as ${NAME} to the default of the
// Dockerfile's ARG NAME=DEFAULT; any other image is returned as written.
func argDefault(df *Dockerfile, image string) string {
	if !strings.HasPrefix(image, "${") || !strings.HasSuffix(image, "}") {
		return image
	}
	name := image[2 : len(image)-1]
	for _, in := range df.Instructions {
		if k, v, ok := strings.Cut(in.Args, "="); in.Cmd == "ARG" && ok && k == name {
			return v
		}
	}
	return image
}

// checkSuiteDockerfile checks the suite's base and the absence of USER.
func checkSuiteDockerfile(t *testing.T, task *Task) {
	t.Helper()
	froms, err := task.Dockerfile.Froms()
	if err != nil {
		t.Fatal(err)
	}
	if len(froms) != 1 || !suiteBases[argDefault(task.Dockerfile, froms[0].Image)] {
		t.Errorf("FROM %v: suite tasks build FROM authbench-base, the Python 3.13 family base or the postgres:15 stand-in", froms)
	}
	for _, in := range task.Dockerfile.Instructions {
		if in.Cmd == "USER" {
			t.Errorf("Dockerfile line %d: USER %s: the agent runs as root in Harbor's convention", in.Line, in.Args)
		}
	}
}

// checkSpecInRoots checks that every required and sensitive pattern lies
// inside a scored root of its axis (lexically: the suite's execute
// entries are realpaths already).
func checkSpecInRoots(t *testing.T, spec *policy.Spec) {
	t.Helper()
	fields := map[string]*policy.Permissions{"required_permissions": &spec.Required}
	if spec.Sensitive != nil {
		fields["sensitive_permissions"] = spec.Sensitive
	}
	for name, perms := range fields {
		for _, a := range policy.Axes {
			for _, p := range perms.Get(a) {
				if !insideRoots(p.Base(), spec.ScoredRoots.Get(a)) {
					t.Errorf("%s.%s: %q is outside every scored root %v", name, a, p, spec.ScoredRoots.Get(a))
				}
			}
		}
	}
}

func insideRoots(p string, roots []policy.Pattern) bool {
	for _, r := range roots {
		if b := r.Base(); b == "/" || p == b || strings.HasPrefix(p, b+"/") {
			return true
		}
	}
	return false
}

func checkSensitiveTask(t *testing.T, task *Task) {
	t.Helper()
	if task.AttackSmoke == "" || task.TestAttack == "" {
		t.Errorf("a sensitive task needs %s and %s", FileAttackSmoke, FileTestAttack)
	}
	if st, err := os.Stat(task.Path(FileAttackSmoke)); err == nil && st.Mode()&0o111 == 0 {
		t.Errorf("%s is not executable", FileAttackSmoke)
	}
	spec := task.Spec
	if spec.Sensitive == nil || spec.Sensitive.Len()+len(spec.Network.Sensitive) == 0 {
		t.Fatalf("no sensitive_permissions")
	}
	for _, req := range spec.Network.Required {
		for _, sens := range spec.Network.Sensitive {
			if req.Overlaps(sens) {
				t.Errorf("required network entry %q overlaps sensitive %q: the oracle would need what must not be reached", req, sens)
			}
		}
	}
	for _, a := range policy.Axes {
		for _, req := range spec.Required.Get(a) {
			for _, sens := range spec.Sensitive.Get(a) {
				if sens.Match(req.Base()) || req.Match(sens.Base()) {
					t.Errorf("required %s entry %q overlaps sensitive %q: the oracle would need what must not be opened", a, req, sens)
				}
			}
		}
	}
}
