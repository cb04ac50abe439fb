package safefile_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/internal/safefile"
	"github.com/authbench/authbench/internal/safefile/safefiletest"
)

// upper makes a directory standing for a run's upper layer, with the
// regular file state/ok.txt.
func upper(t *testing.T) (string, *safefile.Dir) {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "state"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "state", "ok.txt"), []byte("ok\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := safefile.OpenReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return dir, d
}

func TestReadBeneathRefusesAParentLink(t *testing.T) {
	dir, d := upper(t)
	host := safefiletest.HostDir(t, "ok.txt")
	safefiletest.LinkDir(t, filepath.Join(dir, "state"), host)
	for name, read := range map[string]func() ([]byte, error){
		"ReadFile":      func() ([]byte, error) { return d.ReadFile("state/ok.txt") },
		"ReadFileLimit": func() ([]byte, error) { return d.ReadFileLimit("state/ok.txt", 1<<20) },
		"FS":            func() ([]byte, error) { return fs.ReadFile(d.FS(), "state/ok.txt") },
	} {
		data, err := read()
		safefiletest.NoSecret(t, name, string(data))
		if !errors.Is(err, safefile.ErrSymlink) {
			t.Errorf("%s through a linked parent: %v, want ErrSymlink", name, err)
		}
	}
}

func TestReadBeneathRefusesAFIFOWithoutBlocking(t *testing.T) {
	dir, d := upper(t)
	safefiletest.FIFO(t, filepath.Join(dir, "state", "ok.txt"))
	var errs [3]error
	safefiletest.Within(t, 5*time.Second, func() {
		_, errs[0] = d.ReadFile("state/ok.txt")
		_, errs[1] = d.ReadFileLimit("state/ok.txt", 10)
		_, errs[2] = fs.ReadFile(d.FS(), "state/ok.txt")
	})
	for i, err := range errs {
		if !errors.Is(err, safefile.ErrNotRegular) || !strings.Contains(err.Error(), "FIFO") {
			t.Errorf("read %d of a FIFO: %v, want ErrNotRegular naming a FIFO", i, err)
		}
	}
}

func TestReadBeneathNeverOpensADevice(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mknod needs root")
	}
	dir, d := upper(t)
	p := filepath.Join(dir, "state", "ok.txt")
	os.Remove(p)
	// /dev/zero's numbers: reading it would never end without a bound.
	if err := unix.Mknod(p, unix.S_IFCHR|0o644, int(unix.Mkdev(1, 5))); err != nil {
		t.Fatal(err)
	}
	_, err := d.ReadFile("state/ok.txt")
	if !errors.Is(err, safefile.ErrNotRegular) {
		t.Fatalf("read of a device node: %v, want ErrNotRegular", err)
	}
}

func TestReadBeneathKeepsRegularFiles(t *testing.T) {
	_, d := upper(t)
	data, err := d.ReadFile("state/ok.txt")
	if err != nil || string(data) != "ok\n" {
		t.Fatalf("ReadFile = %q, %v", data, err)
	}
	if data, err = d.ReadFileLimit("state/ok.txt", 2); err != nil || string(data) != "ok" {
		t.Fatalf("ReadFileLimit(2) = %q, %v", data, err)
	}
	if _, err := d.ReadFile("state/missing"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing file: %v, want fs.ErrNotExist", err)
	}
	if _, err := d.ReadFile("state"); !errors.Is(err, safefile.ErrNotRegular) {
		t.Fatalf("a directory: %v, want ErrNotRegular", err)
	}
}

func TestWalkBeneathNeverDescendsALink(t *testing.T) {
	dir, d := upper(t)
	host := safefiletest.HostDir(t, "a.jsonl", "sub/b.jsonl")
	safefiletest.LinkDir(t, filepath.Join(dir, "state", "sessions"), host)
	safefiletest.FIFO(t, filepath.Join(dir, "state", "pipe.jsonl"))
	var seen []string
	var walkErr error
	safefiletest.Within(t, 5*time.Second, func() {
		walkErr = fs.WalkDir(d.FS(), ".", func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			seen = append(seen, p+":"+e.Type().String())
			if e.Type().IsRegular() {
				data, err := fs.ReadFile(d.FS(), p)
				if err != nil {
					return err
				}
				safefiletest.NoSecret(t, p, string(data))
			}
			return nil
		})
	})
	if walkErr != nil {
		t.Fatal(walkErr)
	}
	want := []string{".:d---------", "state:d---------", "state/ok.txt:----------", "state/pipe.jsonl:p---------", "state/sessions:L---------"}
	if !slices.Equal(seen, want) {
		t.Fatalf("walk saw %q, want %q", seen, want)
	}
	// A glob through the linked directory matches nothing beneath it.
	m, err := fs.Glob(d.FS(), "state/sessions/*.jsonl")
	if err != nil || len(m) != 0 {
		t.Fatalf("glob through a link = %q, %v; want none", m, err)
	}
	if m, _ := fs.Glob(d.FS(), "state/*.jsonl"); !slices.Equal(m, []string{"state/pipe.jsonl"}) {
		t.Fatalf("glob = %q", m)
	}
}

func TestStatBeneathDescribesALink(t *testing.T) {
	dir, d := upper(t)
	safefiletest.LinkDir(t, filepath.Join(dir, "state", "l"), "/etc")
	st, err := fs.Stat(d.FS(), "state/l")
	if err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("stat of a link = %v, %v; want the link", st, err)
	}
	if _, err := fs.Stat(d.FS(), "state/l/passwd"); !errors.Is(err, safefile.ErrSymlink) {
		t.Fatalf("stat through a link: %v, want ErrSymlink", err)
	}
	if _, err := d.ReadFile("state/l"); !errors.Is(err, safefile.ErrSymlink) {
		t.Fatalf("read of a link: %v, want ErrSymlink", err)
	}
	if _, err := fs.Stat(d.FS(), "../x"); err == nil {
		t.Fatal("stat of ../x: no error")
	}
}
