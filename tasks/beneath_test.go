package tasks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadRefusesSymlinksOutOfTheTask: no file of a task is read through a
// symlink that leaves the task directory (a member could otherwise make
// the root daemon read /etc/shadow, or learn what exists where they cannot
// look); symlinks that stay inside are followed.
func TestLoadRefusesSymlinksOutOfTheTask(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret.md")
	if err := os.WriteFile(secret, []byte("the secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		file, target string
	}{
		{FileInstruction, "/etc/shadow"},
		{FileInstruction, secret},
		{FileConfig, "/etc/passwd"},
		{FileInstruction, "../../../../../../../../etc/shadow"},
		{FilePermissionSpec, "/etc/passwd"},
		{FileSolve, "/etc/shadow"},
		{FileDockerfile, "/etc/passwd"},
	}
	for _, tc := range cases {
		t.Run(tc.file+"->"+tc.target, func(t *testing.T) {
			dir := copyFixture(t, "hello-standard")
			remove(t, dir, tc.file)
			if err := os.Symlink(tc.target, filepath.Join(dir, tc.file)); err != nil {
				t.Fatal(err)
			}
			task, err := Load(dir)
			if err == nil {
				t.Fatalf("loaded through a symlink to %s: instruction %q", tc.target, task.Instruction)
			}
			if msg := err.Error(); !strings.Contains(msg, tc.file) || !strings.Contains(msg, "symlink leads out of the task directory") {
				t.Fatalf("error does not name the file and why: %v", err)
			}
		})
	}
	t.Run("directory symlink", func(t *testing.T) {
		dir := copyFixture(t, "hello-standard")
		outside := t.TempDir()
		if err := os.Rename(filepath.Join(dir, DirTests), filepath.Join(outside, "tests")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(outside, "tests"), filepath.Join(dir, DirTests)); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "symlink leads out") {
			t.Fatalf("tests/ through a symlink out of the task: %v", err)
		}
	})
	t.Run("inside", func(t *testing.T) {
		dir := copyFixture(t, "hello-standard")
		if err := os.Rename(filepath.Join(dir, FileInstruction), filepath.Join(dir, "prompt.md")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("prompt.md", filepath.Join(dir, FileInstruction)); err != nil {
			t.Fatal(err)
		}
		task, err := Load(dir)
		if err != nil || task.Instruction == "" {
			t.Fatalf("a symlink inside the task: %v", err)
		}
	})
}
