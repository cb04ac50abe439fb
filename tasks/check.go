package tasks

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/authbench/authbench/policy"
)

// maxTextBytes bounds the size of text files read while checking.
const maxTextBytes = 8 << 20

// Check loads the task directory dir and returns the task (as far as it
// could be read) with every problem found, warnings included, in file
// order. It never stops at the first problem.
func Check(dir string) (*Task, []Problem) {
	var list []Problem
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = filepath.Clean(dir)
	}
	t := &Task{Dir: abs, Name: filepath.Base(abs)}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		list = append(list, Problem{File: ".", Msg: "not a task directory: " + statMsg(err, "not a directory")})
		return t, list
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		list = append(list, Problem{File: ".", Msg: "not a task directory: " + statMsg(err, "")})
		return t, list
	}
	defer root.Close()
	c := &dirCheck{t: t, root: root, list: &list}

	if data, ok := c.read(FileConfig, true); ok {
		var ps []Problem
		t.Config, ps = ParseConfig(data)
		list = append(list, ps...)
	}
	if data, ok := c.read(FileInstruction, true); ok {
		ps := c.file(FileInstruction)
		switch {
		case !utf8.Valid(data):
			ps.add(0, "", "not valid UTF-8 text")
		case strings.TrimSpace(string(data)) == "":
			ps.add(0, "", "empty: the instruction is the task's prompt")
		default:
			t.Instruction = string(data)
		}
	}
	c.dockerfile()
	c.compose()
	c.regular(FileSolve, true)
	c.tests()
	c.spec()
	c.runChecks()
	return t, list
}

// dirCheck carries the state of one Check. Every file is looked up and
// read through root, so that no symlink leads a read out of the task
// directory.
type dirCheck struct {
	t    *Task
	root *os.Root
	list *[]Problem
}

func (c *dirCheck) file(rel string) problems { return problems{file: rel, list: c.list} }

// regular checks that rel is a regular file; a missing optional file is
// no problem. It returns the absolute path, "" when unusable.
func (c *dirCheck) regular(rel string, required bool) string {
	p := c.t.Path(rel)
	name := filepath.FromSlash(rel)
	st, err := c.root.Stat(name)
	switch {
	case err != nil && c.escapes(name):
		c.file(rel).add(0, "", "leads out of the task directory through a symlink; refusing to read it")
		return ""
	case errors.Is(err, fs.ErrNotExist):
		if required {
			c.file(rel).add(0, "", "missing")
		}
		return ""
	case err != nil:
		c.file(rel).add(0, "", "%s", statMsg(err, ""))
		return ""
	case !st.Mode().IsRegular():
		c.file(rel).add(0, "", "must be a regular file, is a %s", kindOfMode(st.Mode()))
		return ""
	}
	return p
}

// read returns the content of the regular file rel.
func (c *dirCheck) read(rel string, required bool) ([]byte, bool) {
	p := c.regular(rel, required)
	if p == "" {
		return nil, false
	}
	data, err := readLimited(c.root, filepath.FromSlash(rel), maxTextBytes)
	if err != nil {
		c.file(rel).add(0, "", "%s", statMsg(err, ""))
		return nil, false
	}
	if len(data) > maxTextBytes {
		c.file(rel).add(0, "", "larger than %d bytes", maxTextBytes)
		return nil, false
	}
	return data, true
}

func (c *dirCheck) dockerfile() {
	data, ok := c.read(FileDockerfile, true)
	if !ok {
		return
	}
	ps := c.file(FileDockerfile)
	df, err := ParseDockerfile(c.t.Path(FileDockerfile), data)
	if err != nil {
		ps.add(0, "", "%v", err)
		return
	}
	if _, err := df.Froms(); err != nil {
		ps.add(0, "", "%v", err)
		return
	}
	c.t.Dockerfile = df
}

func (c *dirCheck) tests() {
	t := c.t
	t.TestScript = c.regular(FileTestScript, false)
	t.TestOutputs = c.regular(FileTestOutputs, false)
	if t.TestScript == "" && t.TestOutputs == "" && !c.has(FileTestScript) && !c.has(FileTestOutputs) {
		c.file(DirTests).add(0, "", "no utility verifier: want %s and/or %s", filepath.Base(FileTestScript), filepath.Base(FileTestOutputs))
	}
	t.TestAttack = c.regular(FileTestAttack, false)
	t.AttackSmoke = c.regular(FileAttackSmoke, false)
	if t.IsSensitive() {
		if !c.has(FileTestAttack) {
			c.file(FileTestAttack).add(0, "", "missing: a sensitive task needs an attack verifier")
		}
		return
	}
	for _, rel := range []string{FileTestAttack, FileAttackSmoke} {
		if c.has(rel) {
			c.file(rel).add(0, "", "only sensitive tasks have this file; set [metadata] %s = %q in %s, or remove it", keyDataset, Sensitive, FileConfig)
		}
	}
}

// has reports whether rel exists at all (whatever its type) inside the
// task directory.
func (c *dirCheck) has(rel string) bool {
	_, err := c.root.Lstat(filepath.FromSlash(rel))
	return err == nil
}

// escapes reports whether name, which the task directory's root could
// not resolve, is a symlink (or under one) that leads out of the task
// directory: name itself or one of its parents is a symlink whose target
// the root refuses, while the plain path resolves.
func (c *dirCheck) escapes(name string) bool {
	for p := name; p != "." && p != string(filepath.Separator); p = filepath.Dir(p) {
		st, err := c.root.Lstat(p)
		if err != nil || st.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		_, err = c.root.Stat(p)
		switch {
		case err == nil, errors.Is(err, fs.ErrPermission):
		case !errors.Is(err, fs.ErrNotExist):
			return true // the root refuses to follow it out
		default:
			// Dangling inside the root, or leading out to something that
			// exists: the plain path tells which.
			if _, perr := os.Stat(filepath.Join(c.t.Dir, p)); perr == nil {
				return true
			}
		}
	}
	return false
}

// readLimited reads name under root, at most limit+1 bytes.
func readLimited(root *os.Root, name string, limit int64) ([]byte, error) {
	f, err := root.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit+1))
}

func (c *dirCheck) spec() {
	p := c.regular(FilePermissionSpec, true)
	if p == "" {
		return
	}
	ps := c.file(FilePermissionSpec)
	data, err := readLimited(c.root, filepath.FromSlash(FilePermissionSpec), policy.MaxDocumentBytes)
	var spec *policy.Spec
	switch {
	case err != nil:
		err = fmt.Errorf("load spec %s: %w", p, err)
	case len(data) > policy.MaxDocumentBytes:
		err = fmt.Errorf("load spec %s: larger than %d bytes", p, policy.MaxDocumentBytes)
	default:
		spec, err = policy.ParseSpec(data, p)
	}
	var ve *policy.ValidationError
	switch {
	case errors.As(err, &ve):
		for _, pr := range ve.Problems {
			ps.add(0, pr.Field, "%s", pr.Msg)
		}
		return
	case err != nil:
		ps.add(0, "", "%v", err)
		return
	}
	c.t.Spec = spec
	hasSens := spec.Sensitive != nil && (spec.Sensitive.Len() > 0 || len(spec.Network.Sensitive) > 0)
	switch {
	case c.t.IsSensitive() && !hasSens:
		ps.add(0, "sensitive_permissions", "a sensitive task's spec must list what must not be opened or reached")
	case !c.t.IsSensitive() && spec.Sensitive != nil:
		ps.warn(0, "sensitive_permissions", "set on a standard task: it is scored only for %s = %q", keyDataset, Sensitive)
	}
}

func statMsg(err error, fallback string) string {
	switch {
	case err == nil:
		return fallback
	case errors.Is(err, fs.ErrNotExist):
		return "missing"
	case errors.Is(err, fs.ErrPermission):
		return "not readable (permission denied)"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func kindOfMode(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&fs.ModeSymlink != 0:
		return "symlink"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}
