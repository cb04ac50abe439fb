package policy

import "unicode/utf8"

// segmentMatcher matches one path segment with fnmatch rules, exactly as
// Python's fnmatch.fnmatchcase does: '*' any run, '?' one character,
// bracket classes with '!' negation and ranges, an unclosed '[' literal,
// no special leading '.'. It works on code points.
type segmentMatcher struct {
	lit   string // the segment itself when it has no glob characters
	items []matchItem
	glob  bool
}

type itemKind uint8

const (
	itemLiteral itemKind = iota
	itemAnyOne
	itemAnyRun
	itemClass
)

type matchItem struct {
	kind itemKind
	r    rune
	cls  *charClass
}

// charClass is a bracket expression: a set of code-point ranges.
type charClass struct {
	negate bool
	ranges [][2]rune
}

func (c *charClass) contains(r rune) bool {
	in := false
	for _, rg := range c.ranges {
		if rg[0] <= r && r <= rg[1] {
			in = true
			break
		}
	}
	return in != c.negate
}

// hasGlobChars reports whether s contains a character that makes it a
// glob: '*', '?' or '['.
func hasGlobChars(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '*', '?', '[':
			return true
		}
	}
	return false
}

func compileSegment(seg string) segmentMatcher {
	if !hasGlobChars(seg) {
		return segmentMatcher{lit: seg}
	}
	pat := []rune(seg)
	m := segmentMatcher{glob: true}
	n := len(pat)
	for i := 0; i < n; {
		c := pat[i]
		i++
		switch c {
		case '*':
			if len(m.items) == 0 || m.items[len(m.items)-1].kind != itemAnyRun {
				m.items = append(m.items, matchItem{kind: itemAnyRun})
			}
		case '?':
			m.items = append(m.items, matchItem{kind: itemAnyOne})
		case '[':
			cls, next, ok := parseClass(pat, i)
			if !ok {
				m.items = append(m.items, matchItem{kind: itemLiteral, r: '['})
				continue
			}
			m.items = append(m.items, matchItem{kind: itemClass, cls: cls})
			i = next
		default:
			m.items = append(m.items, matchItem{kind: itemLiteral, r: c})
		}
	}
	return m
}

// parseClass parses a bracket expression whose '[' was just before pat[i].
// It follows CPython's fnmatch.translate, including its handling of
// hyphens and its removal of empty (reversed) ranges.
func parseClass(pat []rune, i int) (*charClass, int, bool) {
	n := len(pat)
	j := i
	if j < n && pat[j] == '!' {
		j++
	}
	if j < n && pat[j] == ']' {
		j++
	}
	for j < n && pat[j] != ']' {
		j++
	}
	if j >= n {
		return nil, 0, false
	}
	var chunks [][]rune
	if !containsRune(pat[i:j], '-') {
		chunks = [][]rune{append([]rune(nil), pat[i:j]...)}
	} else {
		chunks = hyphenChunks(pat, i, j)
	}
	cls := &charClass{}
	if len(chunks) == 1 && len(chunks[0]) == 0 {
		return cls, j + 1, true // empty set: never matches
	}
	if chunks[0][0] == '!' {
		cls.negate = true
		chunks[0] = chunks[0][1:]
	}
	for k, ch := range chunks {
		for x, r := range ch {
			startsRange := k+1 < len(chunks) && x == len(ch)-1
			endsRange := k > 0 && x == 0
			switch {
			case endsRange:
				// the upper bound of the range the previous chunk opened
			case startsRange:
				cls.ranges = append(cls.ranges, [2]rune{r, chunks[k+1][0]})
			default:
				cls.ranges = append(cls.ranges, [2]rune{r, r})
			}
		}
	}
	return cls, j + 1, true
}

// hyphenChunks splits pat[i:j] at the hyphens that form ranges and drops
// reversed ranges, as CPython does: the last rune of chunk k-1 and the
// first of chunk k are a range's bounds.
func hyphenChunks(pat []rune, i, j int) [][]rune {
	var chunks [][]rune
	k := i + 1
	if pat[i] == '!' {
		k = i + 2
	}
	for {
		k = indexRune(pat, '-', k, j)
		if k < 0 {
			break
		}
		chunks = append(chunks, append([]rune(nil), pat[i:k]...))
		i = k + 1
		k += 3
	}
	if last := pat[i:j]; len(last) > 0 {
		chunks = append(chunks, append([]rune(nil), last...))
	} else {
		chunks[len(chunks)-1] = append(chunks[len(chunks)-1], '-')
	}
	for k := len(chunks) - 1; k > 0; k-- {
		prev, cur := chunks[k-1], chunks[k]
		if prev[len(prev)-1] > cur[0] {
			chunks[k-1] = append(prev[:len(prev)-1:len(prev)-1], cur[1:]...)
			chunks = append(chunks[:k], chunks[k+1:]...)
		}
	}
	return chunks
}

func indexRune(s []rune, r rune, from, to int) int {
	for k := from; k < to && k < len(s); k++ {
		if k >= 0 && s[k] == r {
			return k
		}
	}
	return -1
}

func containsRune(s []rune, r rune) bool { return indexRune(s, r, 0, len(s)) >= 0 }

// match reports whether the whole of s matches the segment pattern. It
// walks s by code point (an invalid UTF-8 byte is one code point, as in
// []rune(s)) without allocating.
func (m *segmentMatcher) match(s string) bool {
	if !m.glob {
		return s == m.lit
	}
	pi, si := 0, 0
	starP, starS := -1, 0
	for si < len(s) {
		r, size := utf8.DecodeRuneInString(s[si:])
		if pi < len(m.items) {
			it := m.items[pi]
			switch {
			case it.kind == itemAnyRun:
				starP, starS = pi, si
				pi++
				continue
			case it.matchOne(r):
				pi++
				si += size
				continue
			}
		}
		if starP < 0 {
			return false
		}
		_, skip := utf8.DecodeRuneInString(s[starS:])
		starS += skip
		pi, si = starP+1, starS
	}
	for pi < len(m.items) && m.items[pi].kind == itemAnyRun {
		pi++
	}
	return pi == len(m.items)
}

func (it matchItem) matchOne(r rune) bool {
	switch it.kind {
	case itemLiteral:
		return it.r == r
	case itemAnyOne:
		return true
	case itemClass:
		return it.cls.contains(r)
	}
	return false
}
