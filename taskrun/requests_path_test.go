package taskrun

import (
	"slices"
	"testing"

	"github.com/authbench/authbench/policy"
)

// TestWithRequestPath: the program's directory goes last on PATH, added
// when the environment has none; nothing else changes.
func TestWithRequestPath(t *testing.T) {
	for _, c := range []struct{ in, want []string }{
		{[]string{"HOME=/root", "PATH=/usr/bin:/bin"}, []string{"HOME=/root", "PATH=/usr/bin:/bin:/.authbench/bin"}},
		{[]string{"HOME=/root"}, []string{"HOME=/root", "PATH=" + policy.DefaultPath + ":/.authbench/bin"}},
		{nil, []string{"PATH=" + policy.DefaultPath + ":/.authbench/bin"}},
		{[]string{"XPATH=/x", "PATH="}, []string{"XPATH=/x", "PATH=/.authbench/bin"}},
	} {
		in := slices.Clone(c.in)
		if got := withRequestPath(c.in); !slices.Equal(got, c.want) || !slices.Equal(c.in, in) {
			t.Errorf("withRequestPath(%q) = %q, want %q (input kept: %v)", in, got, c.want, slices.Equal(c.in, in))
		}
	}
}
