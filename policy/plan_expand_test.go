package policy

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestExpandBase(t *testing.T) {
	root := planFixture(t)
	tests := []struct {
		pattern string
		want    []string
	}{
		{"/**", []string{"/"}},
		{"/d/**", []string{"/d"}},
		{"/d/*.txt", []string{"/d/f.txt", "/d/g.txt"}},
		{"/d/*", []string{"/d/.hidden", "/d/dangling", "/d/f.txt", "/d/g.txt", "/d/h.bin", "/d/link", "/d/sub"}},
		{"/*/sub/n.txt", []string{"/d/sub/n.txt"}},
		{"/d/[fg].txt", []string{"/d/f.txt", "/d/g.txt"}},
		{"/d/[!f].txt", []string{"/d/g.txt"}},
		{"/d/?.bin", []string{"/d/h.bin"}},
		{"/d/dangling", []string{"/d/dangling"}}, // exists as a symlink
		{"/d/f.txt/x", nil},                      // below a file
		{"/nope/*", nil},
		{"/d/link/x", nil},
	}
	for _, tc := range tests {
		got, err := ExpandBase(root, MustPattern(tc.pattern))
		if err != nil {
			t.Errorf("%s: %v", tc.pattern, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ExpandBase(%s) = %q, want %q", tc.pattern, got, tc.want)
		}
	}
}

// TestExpandBaseIsBounded: a glob over a huge directory is refused rather
// than expanded into an unbounded rule list.
func TestExpandBaseIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("creates 20k files")
	}
	dir := t.TempDir()
	big := filepath.Join(dir, "big")
	if err := os.Mkdir(big, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := 0; i <= MaxExpandMatches; i++ {
		f, err := os.Create(filepath.Join(big, fmt.Sprintf("f%05d", i)))
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	root, err := NewRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ExpandBase(root, MustPattern("/big/*")); !errors.Is(err, ErrTooBroad) {
		t.Fatalf("err = %v, want ErrTooBroad", err)
	}
	// The same tree as a hierarchy rule costs nothing.
	if got, err := ExpandBase(root, MustPattern("/big/**")); err != nil || len(got) != 1 {
		t.Fatalf("/big/** = %v, %v", got, err)
	}
	pol := mustPolicy(t, `{"read":["/big/*"],"write":[],"execute":[]}`)
	if _, err := CompilePlan(pol, NoBaseline(), root); !errors.Is(err, ErrTooBroad) {
		t.Fatalf("CompilePlan err = %v", err)
	}
}
