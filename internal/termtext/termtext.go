// Package termtext makes untrusted text (task names, agent commands,
// paths an agent made, model errors) safe to print on a terminal or in a
// line-oriented report: control characters, invalid UTF-8 and the
// Unicode controls that reorder or break lines are shown as escapes, so
// a name can neither drive the terminal (ESC, OSC, CSI sequences) nor
// forge lines or reorder what is around it.
package termtext

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Escape returns s with every C0 and C1 control character (newline and
// tab included), DEL, byte of invalid UTF-8, bidirectional formatting
// character and line or paragraph separator replaced by an escape:
// \xNN for bytes below 0x80 and invalid bytes, \uNNNN for the rest.
// Anything else is kept as it is.
func Escape(s string) string {
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if escaped(r, n) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1, r < 0x80 && escaped(r, n):
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case escaped(r, n):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// EscapeLines escapes each line of s as Escape does and keeps the
// newlines between them: for multi-line messages (joined errors).
func EscapeLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Escape(l)
	}
	return strings.Join(lines, "\n")
}

func escaped(r rune, size int) bool {
	switch {
	case r == utf8.RuneError && size == 1:
		return true
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true // bidirectional formatting
	case r == 0x2028, r == 0x2029:
		return true // line and paragraph separators
	}
	return false
}
