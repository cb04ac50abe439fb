package policy

import (
	"errors"
	"fmt"
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
	segs := splitPath(p.Base())
	cur := []string{"/"}
	visited := 0
	for k, seg := range segs {
		last := k == len(segs)-1
		var next []string
		if !hasGlobChars(seg) {
			for _, dir := range cur {
				n := path.Join(dir, seg)
				if keepCandidate(root, n, last) {
					next = append(next, n)
				}
			}
		} else {
			prefix, err := ParsePattern("/" + strings.Join(segs[:k+1], "/"))
			if err != nil {
				return nil, fmt.Errorf("expand %s: %w", p, err)
			}
			for _, dir := range cur {
				entries, err := os.ReadDir(root.HostPath(root.Realpath(dir)))
				if err != nil {
					continue // missing or unreadable: contributes nothing
				}
				visited += len(entries)
				if visited > MaxExpandEntries {
					return nil, fmt.Errorf("expand %s: more than %d directory entries: %w", p, MaxExpandEntries, ErrTooBroad)
				}
				for _, e := range entries {
					n := path.Join(dir, e.Name())
					if prefix.Match(n) && keepCandidate(root, n, last) {
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

// keepCandidate reports whether n can continue the expansion: the last
// segment must exist (a dangling symlink counts), an inner one must be a
// directory after following symlinks.
func keepCandidate(root *Root, n string, last bool) bool {
	if last {
		_, err := root.Lstat(n)
		return err == nil
	}
	return root.IsDir(n)
}

// nearestExisting returns the nearest ancestor of the clean absolute
// path p (p excluded) that exists as a directory in root, and whether
// directories between it and p are missing.
func nearestExisting(root *Root, p string) (dir string, missingDirs bool) {
	dir = path.Dir(p)
	for dir != "/" && !root.IsDir(dir) {
		dir = path.Dir(dir)
		missingDirs = true
	}
	return dir, missingDirs
}
