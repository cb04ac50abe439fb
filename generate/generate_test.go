package generate

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/env/imagemeta"
	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/taskrun"
	"github.com/authbench/authbench/taskrun/explore"
	"github.com/authbench/authbench/tasks"
	"github.com/authbench/authbench/tracer"
)

var (
	setupOnce sync.Once
	setupErr  error
	testSelf  string
	testTr    *tracer.Tracer
)

func setup(t *testing.T) {
	t.Helper()
	testenv.NeedRoot(t)
	testenv.NeedTools(t, "runc", "buildah", "debootstrap")
	testSelf = testenv.AuthbenchFull(t)
	setupOnce.Do(func() { testTr, setupErr = tracer.Load(tracer.Options{}, zap.NewNop()) })
	if setupErr != nil {
		t.Fatal(setupErr)
	}
}

func fixture(t *testing.T, name string) *tasks.Task {
	t.Helper()
	task, err := tasks.Load(filepath.Join("..", "tasks", "testdata", "fixtures", name))
	if err != nil {
		t.Fatal(err)
	}
	return task
}

func runOptions(t *testing.T, task *tasks.Task, generator string) Options {
	images := env.Store{Dir: testenv.ImagesDir()}
	return Options{Generator: generator, Timeout: 20 * time.Second, Run: taskrun.Options{Task: task, Self: testSelf,
		Images: images, Builder: env.NewBuilder(imagemeta.Buildah, images), Tracer: testTr, Dir: t.TempDir()}}
}

// TestCmdGeneratorAnswers: a generator's answer on stdout or in the
// output file is validated with the scorer's parser; a generator that
// hangs, prints garbage, prints too much, exits non-zero or is killed
// gives an invalid policy with the reason, and the answer is kept.
func TestCmdGeneratorAnswers(t *testing.T) {
	setup(t)
	task := fixture(t, "hello-standard")
	valid := `{"read": ["/app/input.txt"], "write": ["/app/out.txt"], "execute": []}`
	cases := []struct {
		name, cmd string
		timeout   time.Duration
		valid     bool
		from      string
		reason    string
	}{
		{"stdout", "cat /app/input.txt >/dev/null; echo '" + valid + "'", 0, true, FromStdout, ""},
		{"output file", "echo '" + valid + "' >" + explore.OutFile + "; echo chatter", 0, true, FromOutputFile, ""},
		{"fenced", "echo '```json'; echo '" + valid + "'; echo '```'", 0, true, FromStdout, ""},
		{"chatter first", "ls /app; echo '" + valid + "'", 0, true, FromStdout, ""},
		{"garbage", "echo 'I think the agent needs /app'; echo '{\"read\": '", 0, false, FromStdout, "invalid policy"},
		{"bad pattern", `echo '{"read": ["relative/path"], "write": [], "execute": []}'`, 0, false, FromStdout, "invalid policy"},
		{"empty", "true", 0, false, FromStdout, "no answer"},
		{"non-zero", "echo '" + valid + "'; exit 3", 0, false, FromStdout, "exited with status 3"},
		{"killed", "echo '" + valid + "'; sh -c 'kill -9 $$'", 0, false, FromStdout, "killed by signal 9"},
		{"hangs", "echo '" + valid + "'; while :; do :; done", 3 * time.Second, false, FromStdout, "timed out after 3s"},
		{"output file too large", "head -c 9000000 /dev/zero >" + explore.OutFile + "; echo '" + valid + "'", 0, false, FromStdout, "the output file is larger than 8388608 bytes"},
		{"huge", "echo '{\"read\": ['; i=0; while [ $i -lt 20000 ]; do echo '\"/a\",'; i=$((i+1)); done; echo '\"/b\"], \"write\": [], \"execute\": []}'", 0, false, FromStdout, "truncated"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := runOptions(t, task, "cmd:"+c.cmd)
			if c.timeout > 0 {
				o.Timeout = c.timeout
			}
			rec, err := Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if rec.Valid != c.valid || rec.AnswerFrom != c.from || !strings.Contains(rec.Reason, c.reason) {
				t.Errorf("valid %v from %s reason %q; want %v %s %q", rec.Valid, rec.AnswerFrom, rec.Reason, c.valid, c.from, c.reason)
			}
			if pol := rec.ParsedPolicy(); c.valid && (pol == nil || len(pol.Get(0)) != 1) {
				t.Errorf("policy %s", rec.Policy)
			}
			saved, err := os.ReadFile(filepath.Join(o.Run.Dir, runapi.FileGeneratedPolicy))
			if err != nil || string(saved) != rec.PolicyRaw {
				t.Errorf("policy.json %q, raw answer %q (%v)", saved, rec.PolicyRaw, err)
			}
			if c.name == "huge" && (!strings.HasPrefix(rec.PolicyRaw[explore.MaxGeneratorStdout:], "\n[authbench: output truncated after 65536 bytes")) {
				t.Errorf("huge answer kept %d bytes, want %d and the note: %q", len(rec.PolicyRaw), explore.MaxGeneratorStdout, rec.PolicyRaw[explore.MaxGeneratorStdout:])
			}
			if st, err := os.Stat(filepath.Join(o.Run.Dir, runapi.FileGeneratorOutput)); err != nil {
				t.Error(err)
			} else if st.Size() > 8<<20+1 {
				t.Errorf("the output file is not bounded: %d bytes", st.Size())
			}
			if c.name == "stdout" && (!contains(rec.FilesRead, "/app/input.txt") || rec.ToolCalls != 1) {
				t.Errorf("files read: %v, tool calls %d (want 1: cat)", rec.FilesRead, rec.ToolCalls)
			}
			if _, err := os.Stat(filepath.Join(o.Run.Dir, runapi.FileGeneration)); err != nil {
				t.Error(err)
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestGeneratorSensitiveReads: the record names the sensitive files a
// generator read (it may read everything; the record says it did).
func TestGeneratorSensitiveReads(t *testing.T) {
	setup(t)
	task := fixture(t, "secret-sensitive")
	o := runOptions(t, task, `cmd:cat /app/data.csv /app/config/deploy.key >/dev/null; echo '{"read": ["/app/data.csv"], "write": [], "execute": []}'`)
	rec, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if !rec.Valid || len(rec.SensitiveRead) != 1 || rec.SensitiveRead[0] != "/app/config/deploy.key" || !contains(rec.FilesRead, "/app/data.csv") {
		t.Errorf("valid %v sensitive read %v files read %v (%s)", rec.Valid, rec.SensitiveRead, rec.FilesRead, rec.Reason)
	}
}
