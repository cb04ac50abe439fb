package termtext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestOneLine(t *testing.T) {
	long := strings.Repeat("E   assert 1 == 2\n", 1000)
	for _, c := range []struct {
		name, in string
		max      int
		want     string
	}{
		{"plain", "image build failed", 80, "image build failed"},
		{"lines", "build task t:\n  step 3/4: RUN make\n\n  exit 2", 80, "build task t: | step 3/4: RUN make | exit 2"},
		{"quoted escapes", `verifier said "FAILED tests.py::test_a\n\tassert \"x\" == 'y'\n"`, 80,
			`verifier said "FAILED tests.py::test_a | assert "x" == 'y' | "`},
		{"a literal backslash stays", `path C:\dir\x`, 80, `path C:\dir\x`},
		{"doubled backslash", `a\\nb`, 80, `a\nb`},
		{"the same output twice", "attempt: boom\nline 2\nattempt: boom\nline 2", 80, "attempt: boom | line 2"},
		{"cut", "abcdefghij", 4, "abcd… (6 more characters)"},
		{"cut in runes", "ééééé", 2, "éé… (3 more characters)"},
		{"terminal control", "x\x1b]0;pwned\x07y", 80, `x\x1b]0;pwned\x07y`},
		{"escaped control is not decoded into one", `x\x1b[2Jy`, 80, `x\x1b[2Jy`},
		{"pytest twice", long + long, 60, "E assert 1 == 2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := OneLine(c.in, c.max); got != c.want {
				t.Errorf("OneLine(%.60q, %d) = %q, want %q", c.in, c.max, got, c.want)
			}
		})
	}
}

func TestOneLineBounded(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 5000; i++ {
		b.WriteString("line ")
		b.WriteString(strings.Repeat("x", i%97))
		b.WriteString("\\n\n")
	}
	got := OneLine(b.String(), 300)
	if strings.ContainsAny(got, "\n\r") {
		t.Fatalf("a line break left: %.200q", got)
	}
	body, _, ok := strings.Cut(got, "… (")
	if !ok || utf8.RuneCountInString(body) != 300 {
		t.Errorf("cut at %d characters (%v), want 300: %.100q", utf8.RuneCountInString(body), ok, got)
	}
}
