package env

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
)

// LayoutLink is one symbolic link of a base's Python layout: Name (an
// absolute path in the image) points at Target.
type LayoutLink struct {
	Name, Target string
}

// PythonLayout returns the links that make Debian's Python (version
// "3.N", in /usr/bin) reachable where the official python:3.N images
// have theirs: /usr/local/bin/python3.N, python3, python, and pip,
// pip3, pip3.N when Debian's pip3 is there (hasPip). Relative links
// within /usr/local/bin are as in the official image (python →
// python3 → python3.N). Pure.
func PythonLayout(version string, hasPip bool) []LayoutLink {
	out := []LayoutLink{
		{"/usr/local/bin/python" + version, "/usr/bin/python" + version},
		{"/usr/local/bin/python3", "python" + version},
		{"/usr/local/bin/python", "python3"},
	}
	if hasPip {
		for _, n := range []string{"pip", "pip3", "pip" + version} {
			out = append(out, LayoutLink{"/usr/local/bin/" + n, "/usr/bin/pip3"})
		}
	}
	return out
}

var debianPython = regexp.MustCompile(`^python(3\.[0-9]+)$`)

// pythonVersion finds the Python of a Debian rootfs: the highest
// /usr/bin/python3.N that is a regular file.
func pythonVersion(rootfs string) (string, error) {
	entries, err := os.ReadDir(filepath.Join(rootfs, "usr/bin"))
	if err != nil {
		return "", err
	}
	var versions []string
	for _, e := range entries {
		if m := debianPython.FindStringSubmatch(e.Name()); m != nil && e.Type().IsRegular() {
			versions = append(versions, m[1])
		}
	}
	if len(versions) == 0 {
		return "", errors.New("no /usr/bin/python3.N in the base")
	}
	sort.Slice(versions, func(i, j int) bool { return minor(versions[i]) < minor(versions[j]) })
	return versions[len(versions)-1], nil
}

func minor(v string) int {
	n := 0
	fmt.Sscanf(v, "3.%d", &n)
	return n
}

// applyPythonLayout lays the rootfs's Python out as PythonLayout says and
// lets pip install into it, as the official images do (Debian marks its
// Python externally managed).
func applyPythonLayout(rootfs string) error {
	v, err := pythonVersion(rootfs)
	if err != nil {
		return err
	}
	_, err = os.Lstat(filepath.Join(rootfs, "usr/bin/pip3"))
	hasPip := err == nil
	for _, l := range PythonLayout(v, hasPip) {
		p := filepath.Join(rootfs, filepath.FromSlash(l.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if err := os.Symlink(l.Target, p); err != nil {
			return err
		}
	}
	marker := filepath.Join(rootfs, "usr/lib/python"+v, "EXTERNALLY-MANAGED")
	if err := os.Remove(marker); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
