package termtext

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// OneLine is untrusted multi-line text (a joined error, a verifier's
// quoted output) as one line of at most max characters for a progress
// line: the escapes a quoting left (\n, \r, \t, \", \\) are decoded,
// each line is trimmed and its runs of white space collapsed, a line
// already shown is left out (an error joined from two attempts that
// failed alike appears once), the lines are joined with " | ", and what
// is over max is cut with a note of how much was. The result is Escape'd.
func OneLine(s string, max int) string {
	var lines []string
	seen := map[string]bool{}
	for _, l := range strings.Split(decodeEscapes(s), "\n") {
		l = strings.Join(strings.Fields(l), " ")
		if l == "" || seen[l] {
			continue
		}
		seen[l] = true
		lines = append(lines, l)
	}
	out := strings.Join(lines, " | ")
	if n := utf8.RuneCountInString(out); n > max {
		cut := 0
		for i := range out {
			if cut == max {
				out = fmt.Sprintf("%s… (%d more characters)", out[:i], n-max)
				break
			}
			cut++
		}
	}
	return Escape(out)
}

// decodeEscapes turns the escapes of quoted text into what they stand
// for: \n and \r a line break, \t a space, \" and \\ the character.
// Any other backslash is kept.
func decodeEscapes(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case 'n', 'r':
			b.WriteByte('\n')
		case 't':
			b.WriteByte(' ')
		case '"', '\\':
			b.WriteByte(s[i+1])
		default:
			b.WriteByte(s[i])
			continue
		}
		i++
	}
	return b.String()
}
