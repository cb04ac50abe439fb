// Package wrap re-flows plain-text paragraphs to a column width.
package wrap

import "strings"

// Paragraphs re-flows text: paragraphs are separated by blank lines and kept
// apart by exactly one; within a paragraph, words (runs of non-space
// characters) are filled greedily so that no line is wider than width
// characters. A word wider than width stands on a line of its own.
func Paragraphs(text string, width int) string {
	var out []string
	for _, para := range split(text) {
		out = append(out, fill(strings.Fields(para), width))
	}
	return strings.Join(out, "\n\n") + "\n"
}

func split(text string) []string {
	var paras []string
	var cur []string
	for _, line := range strings.Split(text, "\n") {
		if strings.TrimSpace(line) == "" {
			if len(cur) > 0 {
				paras = append(paras, strings.Join(cur, " "))
				cur = nil
			}
			continue
		}
		cur = append(cur, line)
	}
	if len(cur) > 0 {
		paras = append(paras, strings.Join(cur, " "))
	}
	return paras
}

func fill(words []string, width int) string {
	var lines []string
	line := ""
	for _, w := range words {
		switch {
		case line == "":
			line = w
		case len(line)+1+len(w) <= width:
			line += " " + w
		default:
			lines = append(lines, line)
			line = w
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}
