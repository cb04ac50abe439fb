package policy

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// MaxPatternBytes bounds one pattern: no path on Linux is longer.
const MaxPatternBytes = 4096

// recursiveSuffix marks a pattern that covers its base and everything below.
const recursiveSuffix = "/**"

// Pattern is one normalised absolute path pattern of a policy or spec.
// It is the only path matcher of authbench: the scorer, the enforcer, the
// classifier and the trace filters all call Match.
type Pattern struct {
	raw       string
	base      string
	recursive bool
	glob      bool
	segs      []segmentMatcher
}

// ParsePattern normalises s (trim, backslashes to '/', lexical cleaning,
// trailing "/**" kept as the recursive marker) and compiles it.
func ParsePattern(s string) (Pattern, error) {
	if len(s) > MaxPatternBytes {
		return Pattern{}, fmt.Errorf("pattern is %d bytes long (at most %d)", len(s), MaxPatternBytes)
	}
	norm := strings.TrimSpace(strings.ReplaceAll(s, `\`, "/"))
	if norm == "" {
		return Pattern{}, errors.New("pattern is empty")
	}
	if !strings.HasPrefix(norm, "/") {
		return Pattern{}, fmt.Errorf("pattern %q is not an absolute path", s)
	}
	norm = path.Clean(norm)
	p := Pattern{raw: s, base: norm}
	if norm == recursiveSuffix {
		p.base, p.recursive = "/", true
	} else if strings.HasSuffix(norm, recursiveSuffix) {
		p.base, p.recursive = strings.TrimSuffix(norm, recursiveSuffix), true
	}
	if strings.Contains(p.base, "**") {
		return Pattern{}, fmt.Errorf("pattern %q: \"**\" is only allowed as a trailing \"/**\"", s)
	}
	p.segs = compileSegments(p.base)
	for _, sg := range p.segs {
		p.glob = p.glob || sg.glob
	}
	return p, nil
}

// MustPattern is ParsePattern for patterns known to be valid (tests,
// built-in baselines); it panics on error.
func MustPattern(s string) Pattern {
	p, err := ParsePattern(s)
	if err != nil {
		panic(err)
	}
	return p
}

func compileSegments(base string) []segmentMatcher {
	parts := splitPath(base)
	segs := make([]segmentMatcher, len(parts))
	for i, part := range parts {
		segs[i] = compileSegment(part)
	}
	return segs
}

// splitPath splits a clean absolute path into its segments; "/" has none.
func splitPath(p string) []string {
	p = strings.TrimPrefix(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// String returns the normalised pattern: its base, plus "/**" when it is
// recursive ("/**" for the whole tree).
func (p Pattern) String() string {
	if !p.recursive {
		return p.base
	}
	if p.base == "/" {
		return recursiveSuffix
	}
	return p.base + recursiveSuffix
}

// Raw returns the pattern as it was written.
func (p Pattern) Raw() string { return p.raw }

// Base returns the pattern without its trailing "/**".
func (p Pattern) Base() string { return p.base }

// Recursive reports whether the pattern ends in "/**".
func (p Pattern) Recursive() bool { return p.recursive }

// HasGlob reports whether a segment of the base contains '*', '?' or '['.
func (p Pattern) HasGlob() bool { return p.glob }

// IsExact reports whether the pattern names exactly one path.
func (p Pattern) IsExact() bool { return !p.glob && !p.recursive }

// Match reports whether the clean absolute path name matches the
// pattern: segment by segment with fnmatch rules; a recursive pattern
// matches its base and every path below it. It does not allocate.
func (p Pattern) Match(name string) bool {
	rest := strings.TrimPrefix(name, "/")
	for i := range p.segs {
		if rest == "" {
			return false
		}
		var seg string
		seg, rest, _ = strings.Cut(rest, "/")
		if !p.segs[i].match(seg) {
			return false
		}
	}
	return p.recursive || rest == ""
}

// withBase returns the pattern with its base replaced (used for the
// realpath of a pattern on the execute axis).
func (p Pattern) withBase(base string) Pattern {
	q := p
	q.base = base
	q.segs = compileSegments(base)
	q.glob = false
	for _, sg := range q.segs {
		q.glob = q.glob || sg.glob
	}
	return q
}
