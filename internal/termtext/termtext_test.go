package termtext

import (
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	cases := []struct{ in, want string }{
		{"hello-standard", "hello-standard"},
		{"tâche_é", "tâche_é"},
		{"", ""},
		{"a\x1b[2J\x1b[31mred", `a\x1b[2J\x1b[31mred`},
		{"\x1b]8;;http://evil/\x07link\x1b]8;;\x07", `\x1b]8;;http://evil/\x07link\x1b]8;;\x07`}, // OSC 8 hyperlink
		{"\x1b]0;title\x1b\\", `\x1b]0;title\x1b\`},
		{"ok   fake\nok   forged", `ok   fake\x0aok   forged`},
		{"tab\there\r", `tab\x09here\x0d`},
		{"del\x7f", `del\x7f`},
		{"c1\u009b31m", `c1\u009b31m`}, // 8-bit CSI
		{"bad\xff\xfeutf8", `bad\xff\xfeutf8`},
		{"rtl\u202eexe.txt", `rtl\u202eexe.txt`},
		{"iso\u2066x\u2069", `iso\u2066x\u2069`},
		{"ls\u2028ps\u2029", `ls\u2028ps\u2029`},
		{"nul\x00", `nul\x00`},
		{"back\\slash", `back\slash`},
	}
	for _, c := range cases {
		if got := Escape(c.in); got != c.want {
			t.Errorf("Escape(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestEscapeLeavesNoControl: whatever the input, the output is valid
// UTF-8 without a control character.
func TestEscapeLeavesNoControl(t *testing.T) {
	var all []byte
	for b := 0; b < 256; b++ {
		all = append(all, byte(b))
	}
	all = append(all, "\u0085\u009f\u202a\u200f\u061c"...)
	out := Escape(string(all))
	if !utf8.ValidString(out) {
		t.Fatalf("invalid UTF-8: %q", out)
	}
	for _, r := range out {
		if escaped(r, utf8.RuneLen(r)) {
			t.Fatalf("%U left in %q", r, out)
		}
	}
}

func TestEscapeLines(t *testing.T) {
	if got, want := EscapeLines("run a\x1b[1m: x\nrun b\u202e: y"), "run a\\x1b[1m: x\nrun b\\u202e: y"; got != want {
		t.Fatalf("got %q want %q", got, want)
	}
}
