package env

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/internal/safefile/safefiletest"
)

// TestDedupeStaysBeneathTheBase: a link in a parent component of the
// base (Debian's /var/run → /run is one) never leads dedupe to a host
// file: on main, a task image's file identical to a host file behind the
// link (content, mode, owner, mtime) was replaced by a hard link to the
// host's file. A FIFO in the base never blocks it; identical files of the
// base itself are still shared.
func TestDedupeStaysBeneathTheBase(t *testing.T) {
	host := safefiletest.HostDir(t, "pid")
	hostFile := filepath.Join(host, "pid")
	base, rootfs := t.TempDir(), t.TempDir()
	write := func(p string, data string, mtime time.Time) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	st, err := os.Stat(hostFile)
	if err != nil {
		t.Fatal(err)
	}
	safefiletest.LinkDir(t, filepath.Join(base, "var", "run"), host)
	write(filepath.Join(rootfs, "var", "run", "pid"), safefiletest.Secret+"\n", st.ModTime())
	stamp := time.Unix(1_700_000_000, 0)
	write(filepath.Join(base, "etc", "shared"), "same\n", stamp)
	write(filepath.Join(rootfs, "etc", "shared"), "same\n", stamp)
	safefiletest.FIFO(t, filepath.Join(base, "etc", "fifo"))
	write(filepath.Join(rootfs, "etc", "fifo"), "", stamp)
	var saved int64
	safefiletest.Within(t, 10*time.Second, func() { saved, err = dedupe(base, rootfs) })
	if err != nil {
		t.Fatal(err)
	}
	ino := func(p string) uint64 {
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			t.Fatal(err)
		}
		return st.Ino
	}
	if ino(filepath.Join(rootfs, "var", "run", "pid")) == ino(hostFile) {
		t.Error("the image's file was hard-linked to the host's file behind the base's link")
	}
	if ino(filepath.Join(rootfs, "etc", "shared")) != ino(filepath.Join(base, "etc", "shared")) || saved != int64(len("same\n")) {
		t.Errorf("the base's identical file was not shared (saved %d)", saved)
	}
}
