package policy

import (
	"os"
	"path/filepath"
	"strings"
)

// DefaultPath is the PATH a bare program name is searched in when the
// environment sets none (Docker's and runc's).
const DefaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// ScriptInterpreters are the real paths of what the kernel runs for prog
// when prog is a "#!" script of the root (Shebang): the interpreter its
// "#!" line names, and for `#!/usr/bin/env NAME` also NAME found in path.
// nil for a program that is no script (or whose interpreter is not an
// executable file of the root).
func (r *Root) ScriptInterpreters(prog, path string) []string {
	interp := r.Shebang(prog)
	if len(interp) == 0 {
		return nil
	}
	p := r.Executable(interp[0])
	if p == "" {
		return nil
	}
	out := []string{p}
	if filepath.Base(interp[0]) == "env" && len(interp) > 1 {
		if q := r.LookPath(interp[1], path); q != "" {
			out = append(out, q)
		}
	}
	return out
}

// LookPath finds name (a path, or a bare name searched in path) in the
// root: the real path of an executable regular file, or "".
func (r *Root) LookPath(name, path string) string {
	if strings.Contains(name, "/") {
		if !filepath.IsAbs(name) {
			return ""
		}
		return r.Executable(filepath.Clean(name))
	}
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		if p := r.Executable(filepath.Join(dir, name)); p != "" {
			return p
		}
	}
	return ""
}

// Executable is the real path in the root of p when it is an executable
// regular file, else "".
func (r *Root) Executable(p string) string {
	rp := r.RealpathNow(p)
	st, err := os.Stat(r.HostPath(rp))
	if err != nil || !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0 {
		return ""
	}
	return rp
}
