// Package safefiletest plants what a hostile task, agent or service
// leaves for the host to read — a directory link in a parent component
// pointing at a root-only host directory, a FIFO at the read path — so
// each host-side read site's test (docs/security.md, "Host-side reads")
// shows the same two refusals, bounded in time.
package safefiletest

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Secret is the content of the host files HostDir makes: a read that
// returns it followed a link out of its root.
const Secret = "HOST-SECRET-root-only-6f1c"

// HostDir makes a root-only host directory (mode 0700) outside any run's
// root and the files names in it (mode 0600), each holding Secret.
func HostDir(t testing.TB, names ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "host-private")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		p := filepath.Join(dir, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(Secret+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// LinkDir replaces the directory path (made if missing, removed with
// what is in it otherwise) by a symbolic link to target, as an agent
// that may write its parent does.
func LinkDir(t testing.TB, path, target string) {
	t.Helper()
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

// FIFO puts a FIFO with no writer at path (replacing what is there): an
// open for reading blocks on it forever.
func FIFO(t testing.TB, path string) {
	t.Helper()
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Within runs f and fails the test when it has not returned after d (a
// read or write blocked on a FIFO); f's goroutine is then left behind.
func Within(t testing.TB, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("did not return within %v (blocked on a FIFO?)", d)
	}
}

// NoSecret fails the test when any of the texts holds Secret.
func NoSecret(t testing.TB, what string, texts ...string) {
	t.Helper()
	for _, s := range texts {
		if strings.Contains(s, Secret) {
			t.Fatalf("%s holds the root-only host file's content: %.200q", what, s)
		}
	}
}
