package tasks

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadRefusesSymlinksOutOfTheTask: no file of a task is read
// through a symlink that leads out of the task directory (the daemon
// loads tasks as root); a symlink that stays inside is fine.
func TestLoadRefusesSymlinksOutOfTheTask(t *testing.T) {
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "x.md"), []byte("outside\n"), 0o644)
	os.MkdirAll(filepath.Join(outside, "tests"), 0o755)
	tests := []struct {
		name, file string
		link       func(dir string) error
	}{
		{"instruction to /etc/shadow", FileInstruction, func(dir string) error {
			return relink(filepath.Join(dir, FileInstruction), "/etc/shadow")
		}},
		{"instruction to ../", FileInstruction, func(dir string) error {
			return relink(filepath.Join(dir, FileInstruction), filepath.Join("..", "..", "..", "..", "..", outside, "x.md"))
		}},
		{"task.toml to /etc/passwd", FileConfig, func(dir string) error {
			return relink(filepath.Join(dir, FileConfig), "/etc/passwd")
		}},
		{"tests dir to outside", DirTests, func(dir string) error {
			if err := os.RemoveAll(filepath.Join(dir, DirTests)); err != nil {
				return err
			}
			return os.Symlink(filepath.Join(outside, "tests"), filepath.Join(dir, DirTests))
		}},
		{"solve.sh to /bin/sh", FileSolve, func(dir string) error {
			return relink(filepath.Join(dir, FileSolve), "/bin/sh")
		}},
		{"spec to /etc/passwd", FilePermissionSpec, func(dir string) error {
			return relink(filepath.Join(dir, FilePermissionSpec), "/etc/passwd")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := copyFixture(t, "hello-standard")
			if err := tt.link(dir); err != nil {
				t.Fatal(err)
			}
			_, err := Load(dir)
			var te *Error
			if !errors.As(err, &te) {
				t.Fatalf("loaded: %v", err)
			}
			found := false
			for _, p := range te.Problems {
				if strings.HasPrefix(p.File, tt.file) && strings.Contains(p.Msg, "out of the task directory") {
					found = true
				}
			}
			if !found {
				t.Fatalf("no problem naming %s and the symlink: %v", tt.file, err)
			}
		})
	}
	t.Run("inside", func(t *testing.T) {
		dir := copyFixture(t, "hello-standard")
		data, _ := os.ReadFile(filepath.Join(dir, FileInstruction))
		os.WriteFile(filepath.Join(dir, "prompt.md"), data, 0o644)
		if err := relink(filepath.Join(dir, FileInstruction), "prompt.md"); err != nil {
			t.Fatal(err)
		}
		task, err := Load(dir)
		if err != nil || task.Instruction != string(data) {
			t.Fatalf("a symlink inside the task: %v", err)
		}
	})
}

func relink(path, target string) error {
	if err := os.Remove(path); err != nil {
		return err
	}
	return os.Symlink(target, path)
}
