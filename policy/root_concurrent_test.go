package policy

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
)

// TestRootConcurrentUse: one Root serves plan compilations in parallel
// (the replays of a verify round judge their plans at once), each getting
// the plan a lone compilation gets; its caches used to be unguarded maps
// (the demo died of "concurrent map read and map write" in Realpath).
func TestRootConcurrentUse(t *testing.T) {
	dir := t.TempDir()
	for i := range 200 {
		d := filepath.Join(dir, "srv", fmt.Sprintf("d%03d", i))
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "f"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(fmt.Sprintf("d%03d/f", i), filepath.Join(dir, "srv", fmt.Sprintf("l%03d", i))); err != nil {
			t.Fatal(err)
		}
	}
	pol, err := ParsePolicy([]byte(`{"read":["/srv/l*", "/srv/d1*/f", "/srv/missing/x"],"write":["/srv/d0*/out"],"execute":[]}`), "p.json")
	if err != nil {
		t.Fatal(err)
	}
	compile := func(root *Root) (*Plan, error) {
		return CompilePlanWith(pol, NoBaseline(), root, PlanOptions{Semantics: SemanticsPublished})
	}
	lone, err := NewRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	want, err := compile(lone)
	if err != nil {
		t.Fatal(err)
	}
	shared, err := NewRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	plans := make([]*Plan, 8)
	errs := make([]error, len(plans))
	for i := range plans {
		wg.Add(1)
		go func() {
			defer wg.Done()
			plans[i], errs[i] = compile(shared)
		}()
	}
	wg.Wait()
	for i, pl := range plans {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if !reflect.DeepEqual(pl.Rules, want.Rules) || len(pl.Rules) < 200 {
			t.Errorf("compilation %d: %d rules, a lone one %d", i, len(pl.Rules), len(want.Rules))
		}
	}
}
