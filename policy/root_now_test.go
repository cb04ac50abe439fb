package policy

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestLinksOnNowSeesChangedLinks: LinksOn caches what it read, LinksOnNow
// reads the tree as it is now (a link made or removed since is seen).
func TestLinksOnNowSeesChangedLinks(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "usr/bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "usr/bin/true"), nil, 0o755); err != nil {
		t.Fatal(err)
	}
	root, err := NewRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := root.LinksOn("/usr/bin/python3"); len(got) != 0 {
		t.Fatalf("before: %q", got)
	}
	if err := os.Symlink("/usr/bin/true", filepath.Join(dir, "usr/bin/python3")); err != nil {
		t.Fatal(err)
	}
	if got := root.LinksOn("/usr/bin/python3"); len(got) != 0 {
		t.Fatalf("the cached view changed: %q", got)
	}
	if got := root.LinksOnNow("/usr/bin/python3"); !slices.Equal(got, []string{"/usr/bin/python3"}) {
		t.Fatalf("now: %q", got)
	}
}
