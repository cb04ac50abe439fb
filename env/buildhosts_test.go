package env

import (
	"slices"
	"testing"
)

// TestBuildHosts: the build's allow-list is the defaults plus the
// mirrors' hosts (with the port a mirror URL names), or exactly what the
// options give.
func TestBuildHosts(t *testing.T) {
	got := buildHosts(BuildOptions{Bases: Bases{Default: BaseConfig{Mirror: "http://127.0.0.1:3142/debian"}}})
	for _, want := range append(slices.Clone(DefaultBuildHosts), "127.0.0.1:3142") {
		if !slices.Contains(got, want) {
			t.Errorf("buildHosts lacks %q: %v", want, got)
		}
	}
	if got := buildHosts(BuildOptions{BuildHosts: []string{"mirror.example:8080"}}); !slices.Equal(got, []string{"mirror.example:8080"}) {
		t.Errorf("explicit BuildHosts: %v", got)
	}
	if got := buildHosts(BuildOptions{BuildHosts: []string{}}); len(got) != 0 {
		t.Errorf("an empty BuildHosts allows %v, want nothing", got)
	}
}
