package tasks

import (
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
)

// copySources reports each COPY or ADD source that the build context
// (environment/) does not hold: the builder refuses the image, so every
// run of the task does (tasks.Load refuses it with these words). Only
// sources that name the context are judged: not a stage's or an image's
// (--from), a URL or git address (ADD), a heredoc, or a name with a
// variable the builder would expand.
func (c *dirCheck) copySources() {
	df := c.t.Dockerfile
	if df == nil {
		return
	}
	for _, in := range df.Instructions {
		if (in.Cmd != "COPY" && in.Cmd != "ADD") || len(in.Words) < 2 || fromFlag(in.Flags) {
			continue
		}
		for _, src := range in.Words[:len(in.Words)-1] {
			if !contextSource(in.Cmd, src) {
				continue
			}
			if found, err := c.inContext(src); err == nil && !found {
				c.file(FileDockerfile).add(in.Line, "", "%s source %q is not in the build context (%s/): the image cannot be built", in.Cmd, src, DirEnvironment)
			}
		}
	}
}

// fromFlag reports whether flags copy from a stage or an image.
func fromFlag(flags []string) bool {
	for _, f := range flags {
		if strings.HasPrefix(f, "--from=") || f == "--from" {
			return true
		}
	}
	return false
}

// contextSource reports whether src, a source of cmd, names files of
// the build context.
func contextSource(cmd, src string) bool {
	switch {
	case src == "", strings.HasPrefix(src, "<<"), strings.Contains(src, "$"):
		return false
	case cmd == "ADD" && (strings.Contains(src, "://") || strings.HasPrefix(src, "git@")):
		return false
	}
	return true
}

// inContext reports whether the build context holds what src names: the
// file or directory (a link counts, whatever it points to), or, for a
// pattern, at least one match. A source is resolved inside the context
// as the builder resolves it ("/x" and "../x" are the context's "x").
// An error (a malformed pattern, an unreadable directory) decides
// nothing.
func (c *dirCheck) inContext(src string) (bool, error) {
	rel := strings.TrimLeft(path.Clean("/"+filepath.ToSlash(src)), "/")
	if rel == "" {
		return true, nil // the whole context
	}
	name := path.Join(DirEnvironment, rel)
	if !strings.ContainsAny(rel, "*?[") {
		_, err := c.root.Lstat(filepath.FromSlash(name))
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return err == nil, err
	}
	matches, err := fs.Glob(c.root.FS(), name)
	return len(matches) > 0, err
}
