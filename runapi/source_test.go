package runapi

import "testing"

// TestSourceVocabulary pins the one vocabulary: each name's kind, its
// wire source, and which of bench and request accept it.
func TestSourceVocabulary(t *testing.T) {
	cases := []struct {
		name, kind, arg, wire string
		bench, request, ok    bool
	}{
		{"unconstrained", "unconstrained", "", SourceUnconstrained, true, true, true},
		{"spec", "spec", "", SourceSpec, true, true, true},
		{"trace", "trace", "", SourcePolicy, true, false, true},
		{"allow-all", "allow-all", "", SourcePolicy, true, false, true},
		{"gen:st:gpt-5", "gen:", "st:gpt-5", SourcePolicy, true, false, true},
		{"gen:openai:m", "gen:", "openai:m", SourcePolicy, true, false, true},
		{"dir:/p", "dir:", "/p", SourcePolicy, true, false, true},
		{"policy", "policy", "", SourcePolicy, false, true, true},
		{"Spec", "", "", "", false, false, false},
		{"generator", "", "", "", false, false, false},
		{"", "", "", "", false, false, false},
	}
	for _, c := range cases {
		k, arg, ok := KindOfSource(c.name)
		if ok != c.ok || k.Name != c.kind || arg != c.arg || k.Wire != c.wire || k.Bench != c.bench || k.Request != c.request {
			t.Errorf("KindOfSource(%q) = %+v %q %v, want kind %q arg %q wire %q bench %v request %v ok %v",
				c.name, k, arg, ok, c.kind, c.arg, c.wire, c.bench, c.request, c.ok)
		}
	}
}

// TestSourceRankOrder: the report's row order is the vocabulary's, names
// of no kind last.
func TestSourceRankOrder(t *testing.T) {
	order := []string{"unconstrained", "spec", "trace", "allow-all", "dir:/a", "gen:heuristic", "policy", "zzz"}
	for i := 1; i < len(order); i++ {
		if SourceRank(order[i-1]) >= SourceRank(order[i]) {
			t.Errorf("rank %s (%d) not before %s (%d)", order[i-1], SourceRank(order[i-1]), order[i], SourceRank(order[i]))
		}
	}
	if got, want := SourceNames(true), "unconstrained, spec, policy"; got != want {
		t.Errorf("request sources %q, want %q", got, want)
	}
	if got, want := SourceNames(false), "unconstrained, spec, trace, allow-all, dir:PATH, gen:GENERATOR"; got != want {
		t.Errorf("bench sources %q, want %q", got, want)
	}
}
