package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/internal/testenv"
)

const member = 1000

func TestOpenOutDirRefusesAnotherUsersDir(t *testing.T) {
	testenv.NeedRoot(t)
	out := filepath.Join(t.TempDir(), "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(out, member, member); err != nil {
		t.Fatal(err)
	}
	var ue *UntrustedError
	if _, err := OpenOutDir(out, 0); !errors.As(err, &ue) || !strings.Contains(ue.Reason, "uid 1000") {
		t.Fatalf("root in a member's dir: %v", err)
	}
	// The member may; root's dir is not the member's.
	d, err := OpenOutDir(out, member)
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	if _, err := OpenOutDir(t.TempDir(), member); !errors.As(err, &ue) {
		t.Fatalf("member in root's dir: %v", err)
	}
}

func TestOpenOutDirRefusesWritableByOthers(t *testing.T) {
	for _, mode := range []os.FileMode{0o777, 0o775, 0o757, 0o777 | os.ModeSticky} {
		out := filepath.Join(t.TempDir(), "out")
		if err := os.Mkdir(out, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(out, mode); err != nil {
			t.Fatal(err)
		}
		var ue *UntrustedError
		if _, err := OpenOutDir(out, os.Geteuid()); !errors.As(err, &ue) || !strings.Contains(ue.Reason, "writable by others") {
			t.Fatalf("mode %04o: %v", mode, err)
		}
	}
}

// TestOpenOutDirRefusesParentOfAnotherUser: a member-owned directory
// above the out dir could swap it; nothing is created under it.
func TestOpenOutDirRefusesParentOfAnotherUser(t *testing.T) {
	testenv.NeedRoot(t)
	home := filepath.Join(t.TempDir(), "home")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(home, member, member); err != nil {
		t.Fatal(err)
	}
	var ue *UntrustedError
	if _, err := OpenOutDir(filepath.Join(home, "a", "out"), 0); !errors.As(err, &ue) || ue.Path != home {
		t.Fatalf("under a member's dir: %v", err)
	}
	if ents, _ := os.ReadDir(home); len(ents) != 0 {
		t.Fatalf("created under the member's dir: %v", ents)
	}
	// A sticky world-writable parent (/tmp) is fine: others cannot rename
	// what the caller made in it.
	tmp := filepath.Join(t.TempDir(), "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(tmp, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	d, err := OpenOutDir(filepath.Join(tmp, "x", "out"), os.Geteuid())
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
}

func TestOpenOutDirRefusesAPathSwappedForALink(t *testing.T) {
	base := t.TempDir()
	victim := filepath.Join(base, "victim")
	if err := os.Mkdir(victim, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(base, "link")); err != nil {
		t.Fatal(err)
	}
	// openSub is the walk's step: it never follows the link.
	fd, err := openSub(-100 /* AT_FDCWD */, filepath.Join(base, "link"), true)
	if err == nil || !errors.Is(linkError("link", err), ErrSymlink) {
		t.Fatalf("walked through a link: fd %d err %v", fd, err)
	}
}

func TestDirFollowsNoLink(t *testing.T) {
	out := t.TempDir()
	elsewhere := t.TempDir()
	victim := filepath.Join(elsewhere, "victim")
	if err := os.WriteFile(victim, []byte("keep\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := OpenOutDir(out, os.Geteuid())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(victim, filepath.Join(out, "results.db")))
	must(os.Symlink(elsewhere, filepath.Join(out, "trial")))
	must(d.MkdirAll("run/agent"))
	must(d.WriteFile("run/agent/stdout.txt", []byte("hi"), 0o644))

	if err := d.WriteFile("results.db", []byte("x"), 0o644); !errors.Is(err, ErrSymlink) {
		t.Fatalf("WriteFile at a link: %v", err)
	}
	if _, err := d.OpenFile("results.db", os.O_RDWR|os.O_CREATE, 0o644); !errors.Is(err, ErrSymlink) {
		t.Fatalf("OpenFile at a link: %v", err)
	}
	if _, err := d.ReadFile("trial/victim"); !errors.Is(err, ErrSymlink) {
		t.Fatalf("ReadFile through a linked dir: %v", err)
	}
	if err := d.WriteFile("trial/x", []byte("x"), 0o644); !errors.Is(err, ErrSymlink) {
		t.Fatalf("WriteFile through a linked dir: %v", err)
	}
	if err := d.MkdirAll("trial/sub"); !errors.Is(err, ErrSymlink) {
		t.Fatalf("MkdirAll through a linked dir: %v", err)
	}
	if _, err := d.ReadFile("../" + filepath.Base(elsewhere) + "/victim"); err == nil {
		t.Fatal("read outside the dir")
	}
	if st, err := d.Lstat("results.db"); err != nil || st.Mode&0o170000 != 0o120000 {
		t.Fatalf("Lstat of the link: %v", err)
	}
	must(d.RemoveAll("trial"))
	must(d.RemoveAll("results.db"))
	must(d.RemoveAll("run"))
	must(d.RemoveAll("absent"))
	if got, _ := os.ReadFile(victim); string(got) != "keep\n" {
		t.Fatalf("victim changed: %q", got)
	}
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 1 {
		t.Fatalf("the linked dir lost files: %v", ents)
	}
	if ents, _ := os.ReadDir(out); len(ents) != 0 {
		t.Fatalf("left in the out dir: %v", ents)
	}
}

func TestDirWriteAndRead(t *testing.T) {
	d, err := OpenOutDir(filepath.Join(t.TempDir(), "a", "b"), os.Geteuid())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.MkdirAll("x/y"); err != nil {
		t.Fatal(err)
	}
	for _, data := range []string{"first", "second"} {
		if err := d.WriteFile("x/y/f.json", []byte(data), 0o640); err != nil {
			t.Fatal(err)
		}
		got, err := d.ReadFile("x/y/f.json")
		if err != nil || string(got) != data {
			t.Fatalf("read %q %v, want %q", got, err, data)
		}
	}
	st, err := os.Stat(d.Join("x/y/f.json"))
	if err != nil || st.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v %v", st.Mode(), err)
	}
	if ents, _ := os.ReadDir(d.Join("x/y")); len(ents) != 1 {
		t.Fatalf("temporary files left: %v", ents)
	}
}

func TestOpenParentAllowsStickyTmp(t *testing.T) {
	d, base, err := OpenParent("/tmp/authbench-report.md", os.Geteuid())
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	if base != "authbench-report.md" {
		t.Fatalf("base %q", base)
	}
}
