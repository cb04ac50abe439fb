package env

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/env/imagemeta"
	"github.com/authbench/authbench/tasks"
)

// TestHeredocFixtureBuilds builds tasks/testdata/fixtures/heredoc with
// buildah 1.28 (which does not know heredocs) and checks that every
// heredoc did what the Dockerfile reference says, then that the task's
// oracle passes in the image.
func TestHeredocFixtureBuilds(t *testing.T) {
	needRunc(t)
	img := buildFixture(t, "heredoc", nil)
	for _, f := range []struct {
		path, content string
		mode          os.FileMode
	}{
		{"app/run-simple.txt", "run-simple hello\n", 0},
		{"app/run-bash.txt", "run-bash $TARGET\n", 0},
		{"app/run-chomp.txt", "run-chomp\n", 0},
		{"app/run-shebang.txt", "run-shebang\n", 0},
		{"app/copy-expand.txt", "hello world\n", 0o644},
		{"app/copy-raw.sh", "#!/bin/sh\necho \"$GREETING\"\n", 0o755},
		{"app/dir/EOF", "chomped\n", 0o644},
	} {
		p := filepath.Join(img.Rootfs, f.path)
		data, err := os.ReadFile(p)
		if err != nil || string(data) != f.content {
			t.Errorf("%s = %q, %v; want %q", f.path, data, err, f.content)
			continue
		}
		if st, _ := os.Stat(p); f.mode != 0 && st.Mode().Perm() != f.mode {
			t.Errorf("%s mode = %v, want %v", f.path, st.Mode().Perm(), f.mode)
		}
	}
	if _, err := os.Stat(filepath.Join(img.Rootfs, "app/dir/input.txt")); err != nil {
		t.Errorf("the context file copied with the heredoc: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(img.Rootfs, "tmp/tmp.*")); len(left) != 0 {
		t.Errorf("the #! heredoc left %v behind", left)
	}
	task := fixture(t, "heredoc")
	if utility, _ := agentThenVerify(t, task, img, task.Path(tasks.FileSolve)); !utility {
		t.Error("oracle failed in the heredoc image")
	}
}

// TestBuildTaskRefusesUntranslatableHeredoc: a heredoc buildah cannot run
// is refused with its line before anything is built.
func TestBuildTaskRefusesUntranslatableHeredoc(t *testing.T) {
	dir := copyFixture(t, "hello-standard")
	df := "FROM authbench-base\nWORKDIR /app\nCOPY <<EOF /app/x\n$HOME\nEOF\nCOPY input.txt /app/input.txt\n"
	if err := os.WriteFile(filepath.Join(dir, tasks.FileDockerfile), []byte(df), 0o644); err != nil {
		t.Fatal(err)
	}
	// tasks.Load refuses it already (tasks check names it); a caller that
	// skips the check still gets the refusal from BuildTask.
	task, problems := tasks.Check(dir)
	if !tasks.HasErrors(problems) || task.Dockerfile == nil {
		t.Fatalf("check: %v", problems)
	}
	s := Store{Dir: t.TempDir()}
	_, _, err := BuildTask(context.Background(), s, task, BuildOptions{Builder: NewBuilder(imagemeta.Buildah, s)})
	var he *tasks.HeredocError
	if !errors.As(err, &he) || !strings.Contains(err.Error(), "environment/Dockerfile:3: heredoc the builder cannot run") {
		t.Fatalf("err = %v, want a *tasks.HeredocError at line 3", err)
	}
	if entries, _ := os.ReadDir(s.Dir); len(entries) != 0 {
		t.Errorf("something was made before the refusal: %v", entries)
	}
}

// copyFixture copies a fixture task into a temporary directory.
func copyFixture(t *testing.T, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dst, os.DirFS(filepath.Join("..", "tasks", "testdata", "fixtures", name))); err != nil {
		t.Fatal(err)
	}
	return dst
}
