package wrap

import "testing"

func TestParagraphs(t *testing.T) {
	cases := []struct {
		name, in string
		width    int
		want     string
	}{
		{"ascii", "the quick brown fox jumps over the lazy dog", 15, "the quick brown\nfox jumps over\nthe lazy dog\n"},
		{"paragraphs", "one two\nthree\n\n\nfour", 40, "one two three\n\nfour\n"},
		{"long word", "a supercalifragilistic b", 10, "a\nsupercalifragilistic\nb\n"},
		{"accents", "café crème brûlée à la carte", 11, "café crème\nbrûlée à la\ncarte\n"},
		{"cyrillic", "съешь же ещё этих мягких булок", 14, "съешь же ещё\nэтих мягких\nбулок\n"},
	}
	for _, c := range cases {
		if got := Paragraphs(c.in, c.width); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}
