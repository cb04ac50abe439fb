package toolbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkShellCall is one shell call (a command that execs wc) through
// the protocol, unconfined; "bare" is the same command run by
// `bash -c` from Go, without the toolbox: the difference is the
// toolbox's share (protocol, session wrapper, process group, trailer).
func BenchmarkShellCall(b *testing.B) {
	dir := b.TempDir()
	os.WriteFile(filepath.Join(dir, "in.txt"), []byte("a\nb\n"), 0o644)
	b.Run("toolbox", func(b *testing.B) {
		c := serve(b, Options{Dir: dir})
		ctx := context.Background()
		for b.Loop() {
			if r, err := c.Call(ctx, Request{Op: OpShell, Command: "wc -l < in.txt"}); err != nil || r.Output != "2\n" {
				b.Fatalf("%v %+v", err, r)
			}
		}
	})
	b.Run("bare", func(b *testing.B) {
		for b.Loop() {
			cmd := exec.Command(findShell(os.Environ()), "-c", "wc -l < in.txt")
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil || string(out) != "2\n" {
				b.Fatalf("%v %q", err, out)
			}
		}
	})
}

// BenchmarkReadFile is one read_file call through the protocol.
func BenchmarkReadFile(b *testing.B) {
	dir := b.TempDir()
	os.WriteFile(filepath.Join(dir, "in.txt"), []byte("a\nb\n"), 0o644)
	c := serve(b, Options{Dir: dir})
	ctx := context.Background()
	for b.Loop() {
		if r, err := c.Call(ctx, Request{Op: OpReadFile, Path: "in.txt"}); err != nil || r.Output != "a\nb\n" {
			b.Fatalf("%v %+v", err, r)
		}
	}
}
