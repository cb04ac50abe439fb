package policy

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"os/exec"
	"testing"

	"github.com/authbench/authbench/internal/testenv"
)

// pythonFnmatch is the reference: CPython's fnmatch.fnmatchcase, which
// the published verifier uses for each segment.
const pythonFnmatch = `
import fnmatch, json, sys
pairs = json.load(sys.stdin)
json.dump([fnmatch.fnmatchcase(n, p) for p, n in pairs], sys.stdout)
`

// requireTool returns the path of a program the test needs; under CI the
// test fails without it, elsewhere it is skipped.
func requireTool(t *testing.T, name string) string {
	t.Helper()
	testenv.NeedTools(t, name)
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSegmentMatchAgreesWithCPython compares the segment matcher with
// CPython's fnmatchcase on random patterns built from the characters
// that have meaning in fnmatch.
func TestSegmentMatchAgreesWithCPython(t *testing.T) {
	python := requireTool(t, "python3")
	rng := rand.New(rand.NewSource(1))
	patAlphabet := []rune("ab-c!]*?[^\\z")
	nameAlphabet := []rune("abc-!]^[\\z")
	randString := func(alpha []rune, max int) string {
		n := rng.Intn(max + 1)
		rs := make([]rune, n)
		for i := range rs {
			rs[i] = alpha[rng.Intn(len(alpha))]
		}
		return string(rs)
	}
	var pairs [][2]string
	for i := 0; i < 20000; i++ {
		pairs = append(pairs, [2]string{randString(patAlphabet, 7), randString(nameAlphabet, 5)})
	}
	in, err := json.Marshal(pairs)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python, "-c", pythonFnmatch)
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	var want []bool
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	mismatches := 0
	for i, pr := range pairs {
		m := compileSegment(pr[0])
		if got := m.match(pr[1]); got != want[i] {
			mismatches++
			if mismatches <= 10 {
				t.Errorf("segment %q vs %q: got %v, CPython says %v", pr[0], pr[1], got, want[i])
			}
		}
	}
	if mismatches > 0 {
		t.Fatalf("%d of %d pairs disagree with CPython", mismatches, len(pairs))
	}
}
