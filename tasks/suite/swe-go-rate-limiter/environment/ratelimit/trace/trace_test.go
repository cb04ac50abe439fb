package trace

import (
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	reqs, err := Read(strings.NewReader("# t client cost\n0 alice\n\n15 bob 3\n  40 alice 2  \n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Request{{0, "alice", 1}, {15, "bob", 3}, {40, "alice", 2}}
	if len(reqs) != len(want) {
		t.Fatalf("got %d requests, want %d", len(reqs), len(want))
	}
	for i := range want {
		if reqs[i] != want[i] {
			t.Errorf("request %d: got %+v, want %+v", i, reqs[i], want[i])
		}
	}
}

func TestReadRejects(t *testing.T) {
	for _, in := range []string{"x alice\n", "10\n", "10 alice 0\n", "10 alice 1 2\n"} {
		if _, err := Read(strings.NewReader(in)); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}
