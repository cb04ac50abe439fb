package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
)

// Bounds of one glob expansion, so that a pattern like "/*/*/*" cannot
// make a launch walk the whole machine.
const (
	// MaxExpandEntries bounds the directory entries one pattern may read.
	MaxExpandEntries = 200000
	// MaxExpandMatches bounds the paths one pattern may match.
	MaxExpandMatches = 20000
)

// ErrTooBroad is returned (wrapped) when a pattern's expansion exceeds
// MaxExpandEntries or MaxExpandMatches.
var ErrTooBroad = errors.New("pattern is too broad to expand at launch")

// ExpandBase returns the existing environment paths (found with Lstat,
// so dangling symlinks count) that match the base of p, sorted. A
// recursive pattern stands for its base directory: its hierarchy is
// covered by one Landlock rule, so it is never walked. Only segments
// that hold a glob list a directory; literal segments are joined, so
// expanding "/a/b/*" reads "/a/b" and nothing else. Matching is done by
// Pattern.Match on prefixes of the pattern, so the expansion and every
// other user of the matcher agree.
func ExpandBase(root *Root, p Pattern) ([]string, error) {
	return newExpander(root).expand(p)
}

// expander expands patterns against one root, remembering what it
// stat'ed: a plan looks at the same directories many times, and each
// stat is a system call.
type expander struct {
	root  *Root
	stats map[string]statResult // by realpath'd directory + last component
}

type statResult struct {
	info fs.FileInfo // nil when missing
}

func newExpander(root *Root) *expander {
	return &expander{root: root, stats: map[string]statResult{}}
}

// lstat stats the environment path p without following its last
// component; the directory part is resolved inside the root first.
func (e *expander) lstat(p string) fs.FileInfo {
	if p != "/" {
		p = path.Join(e.root.Realpath(path.Dir(p)), path.Base(p))
	}
	if r, ok := e.stats[p]; ok {
		return r.info
	}
	st, err := e.root.Lstat(p)
	if err != nil {
		st = nil
	}
	e.stats[p] = statResult{info: st}
	return st
}

// isDir reports whether p is a directory after following symlinks.
func (e *expander) isDir(p string) bool {
	st := e.lstat(p)
	if st != nil && st.Mode()&fs.ModeSymlink != 0 {
		st = e.lstat(e.root.Realpath(p))
	}
	return st != nil && st.IsDir()
}

func (e *expander) expand(p Pattern) ([]string, error) { return e.expandGlob(p, false) }

// expandHidingDots is expand as Python's glob.glob (the published
// launcher's caller) expands: a wildcard segment does not match a name
// starting with "." unless the segment itself starts with one.
func (e *expander) expandHidingDots(p Pattern) ([]string, error) { return e.expandGlob(p, true) }

func (e *expander) expandGlob(p Pattern, hideDots bool) ([]string, error) {
	if !p.HasGlob() {
		if e.lstat(p.Base()) == nil {
			return nil, nil
		}
		return []string{p.Base()}, nil
	}
	segs := splitPath(p.Base())
	cur := []string{"/"}
	visited := 0
	for k, seg := range segs {
		last := k == len(segs)-1
		var next []string
		if !hasGlobChars(seg) {
			for _, dir := range cur {
				n := path.Join(dir, seg)
				if e.keep(n, last) {
					next = append(next, n)
				}
			}
		} else {
			prefix, err := ParsePattern("/" + strings.Join(segs[:k+1], "/"))
			if err != nil {
				return nil, fmt.Errorf("expand %s: %w", p, err)
			}
			for _, dir := range cur {
				entries, err := os.ReadDir(e.root.HostPath(e.root.Realpath(dir)))
				if err != nil {
					continue // missing or unreadable: contributes nothing
				}
				visited += len(entries)
				if visited > MaxExpandEntries {
					return nil, fmt.Errorf("expand %s: more than %d directory entries: %w", p, MaxExpandEntries, ErrTooBroad)
				}
				for _, de := range entries {
					if hideDots && strings.HasPrefix(de.Name(), ".") && !strings.HasPrefix(seg, ".") {
						continue
					}
					n := path.Join(dir, de.Name())
					if prefix.Match(n) && e.keep(n, last) {
						next = append(next, n)
					}
				}
			}
		}
		if len(next) > MaxExpandMatches {
			return nil, fmt.Errorf("expand %s: more than %d matches: %w", p, MaxExpandMatches, ErrTooBroad)
		}
		cur = next
		if len(cur) == 0 {
			return nil, nil
		}
	}
	sort.Strings(cur)
	return cur, nil
}

// keep reports whether n can continue the expansion: the last segment
// must exist (a dangling symlink counts), an inner one must be a
// directory after following symlinks.
func (e *expander) keep(n string, last bool) bool {
	if last {
		return e.lstat(n) != nil
	}
	return e.isDir(n)
}

// nearestExisting returns the nearest ancestor of the clean absolute
// path p (p excluded) that exists as a directory in root, and whether
// directories between it and p are missing.
func (e *expander) nearestExisting(p string) (dir string, missingDirs bool) {
	dir = path.Dir(p)
	for dir != "/" && !e.isDir(dir) {
		dir = path.Dir(dir)
		missingDirs = true
	}
	return dir, missingDirs
}
