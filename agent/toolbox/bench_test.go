package toolbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/sandbox"
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

// BenchmarkConfinedCall is read_file and a shell call with the calls
// confined (OpConfine, as under --requests: each call on a new thread
// restricted by the ruleset) beside the same calls unconfined: the
// difference is the per-call thread and landlock_restrict_self. The
// server runs in this process; only its call threads are restricted,
// and they end with their calls.
func BenchmarkConfinedCall(b *testing.B) {
	if sandbox.KernelLandlockABI() == 0 {
		b.Skip("no Landlock")
	}
	dir := b.TempDir()
	os.WriteFile(filepath.Join(dir, "in.txt"), []byte("a\nb\n"), 0o644)
	pol, err := policy.ParsePolicy([]byte(`{"read":["`+dir+`/**"],"write":[],"execute":["/usr/bin/bash","/usr/bin/wc"]}`), "bench")
	if err != nil {
		b.Fatal(err)
	}
	root, _ := policy.NewRoot("/")
	plan, err := policy.CompilePlan(pol, policy.DefaultBaseline(), root)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for _, confined := range []bool{false, true} {
		c := serve(b, Options{Dir: dir})
		name := "unconfined"
		if confined {
			name = "confined"
			if r, err := c.Call(ctx, Request{Op: OpConfine, Plan: plan}); err != nil || r.Error != "" {
				b.Fatalf("confine: %v %+v", err, r)
			}
		}
		b.Run(name+"/read_file", func(b *testing.B) {
			for b.Loop() {
				if r, err := c.Call(ctx, Request{Op: OpReadFile, Path: "in.txt"}); err != nil || r.Output != "a\nb\n" {
					b.Fatalf("%v %+v", err, r)
				}
			}
		})
		b.Run(name+"/shell", func(b *testing.B) {
			for b.Loop() {
				if r, err := c.Call(ctx, Request{Op: OpShell, Command: "wc -l < in.txt"}); err != nil || !strings.HasPrefix(r.Output, "2\n") {
					b.Fatalf("%v %+v", err, r)
				}
			}
		})
	}
}
