package installed

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testCache keeps layers and npm's downloads between test runs (CI has
// npm access: the first run downloads, later ones reuse).
const testCache = "/var/cache/authbench-test/harness"

// TestLayerIsCached: pi's layer (made once, with npm) holds Node 24 and
// pi's entry, everything readable and nothing writable by others; asking
// for it again costs well under a second and reports it was not built.
func TestLayerIsCached(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (the cache is root's)")
	}
	if _, err := exec.LookPath("npm"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("npm is needed to make harness layers")
		}
		t.Skip("no npm")
	}
	h := Harnesses["pi"]
	ctx := context.Background()
	if _, _, err := Layer(ctx, testCache, h, "", nil); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	dir, built, err := Layer(ctx, testCache, h, "", nil)
	if took := time.Since(start); err != nil || built || took > time.Second {
		t.Fatalf("second Layer: %s built=%v in %v: %v", dir, built, took, err)
	}
	out, err := exec.Command(filepath.Join(dir, Node), "--version").Output()
	if err != nil || strings.TrimSpace(string(out)) != "v"+NodeVersion {
		t.Errorf("node --version: %q %v", out, err)
	}
	if _, err := os.Stat(filepath.Join(dir, h.EntryPath())); err != nil {
		t.Error(err)
	}
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.Type()&os.ModeSymlink != 0 {
			return err
		}
		info, _ := d.Info()
		if m := info.Mode().Perm(); m&0o444 != 0o444 || m&0o022 != 0 {
			t.Errorf("%s: mode %v", p, m)
			return filepath.SkipAll
		}
		return nil
	})
}
