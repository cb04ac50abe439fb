package oracle

import (
	"path"
	"sort"

	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/tracer/trace"
)

// Env answers what the task image looked like before the run: the
// realpath of a name (symlinks resolved inside the image) and whether a
// path existed. A nil Env resolves nothing and knows no file.
type Env interface {
	Realpath(p string) string
	Exists(p string) bool
}

// RootEnv is the Env of an image root directory.
type RootEnv struct{ Root *policy.Root }

// Realpath resolves p inside the root.
func (e RootEnv) Realpath(p string) string { return e.Root.Realpath(p) }

// Exists reports whether p (not following a final symlink) exists.
func (e RootEnv) Exists(p string) bool {
	_, err := e.Root.Lstat(p)
	return err == nil
}

// Accesses are the successful file operations of one traced run, per
// axis, with the paths the run created and removed.
type Accesses struct {
	// Paths holds, per axis (indexed by policy.Axis), every path reached.
	Paths [len(policy.Axes)]map[string]bool
	// Created are paths the run made that did not exist in the image
	// (open with O_CREAT, mkdir, the new name of rename or link, symlink).
	Created map[string]bool
	// Removed are created or existing paths that the run's last
	// operation on them removed (unlink, rmdir, the old name of rename).
	Removed map[string]bool
	// Listed are directories opened for reading (O_DIRECTORY): listed.
	Listed map[string]bool
}

func newAccesses() *Accesses {
	a := &Accesses{Created: map[string]bool{}, Removed: map[string]bool{}, Listed: map[string]bool{}}
	for _, ax := range policy.Axes {
		a.Paths[ax] = map[string]bool{}
	}
	return a
}

// Sorted returns the paths of axis ax in order.
func (a *Accesses) Sorted(ax policy.Axis) []string { return sortedKeys(a.Paths[ax]) }

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k, ok := range m {
		if ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// Derive collects the successful operations of events (in time order):
//   - read: files opened for reading (O_RDWR counts for read and write);
//   - write: files opened for writing, created or truncated, unlinked,
//     renamed (both names), linked (the new name), symlinks made,
//     directories made or removed, device nodes made; files whose mode,
//     owner or extended attributes changed (chmod, chown, setxattr;
//     utime is not traced);
//   - execute: the realpath of the name executed and the file the kernel
//     ran (for a `#!` script: the script and its interpreter), and
//     programs run through the dynamic loader.
//
// O_PATH opens, failed operations and files without a reachable path
// are left out. env (may be nil) resolves names against the image.
func Derive(events []trace.Event, env Env) *Accesses {
	acc := newAccesses()
	d := deriver{env: env, acc: acc}
	for i := range events {
		d.observe(&events[i])
	}
	for _, le := range trace.FindLoaderExecs(events, d.realpath) {
		if le.Ret >= 0 && le.Program != "" {
			acc.Paths[policy.Execute][d.realpath(le.Program)] = true
		}
	}
	return acc
}

type deriver struct {
	env Env
	acc *Accesses
}

func (d *deriver) realpath(p string) string {
	if d.env == nil || p == "" {
		return p
	}
	return d.env.Realpath(p)
}

// entry is the realpath of the directory of p joined with p's last
// name: the file an operation that does not follow a final symlink
// (unlink, rename, mkdir, link, symlink) reaches.
func (d *deriver) entry(p string) string {
	if p == "/" || p == "" {
		return p
	}
	return path.Join(d.realpath(path.Dir(p)), path.Base(p))
}

func (d *deriver) existed(p string) bool { return d.env != nil && d.env.Exists(p) }

// target is the file an open, exec or truncate reached.
func (d *deriver) target(ev *trace.Event) string {
	switch ev.RealState {
	case trace.RealUnreachable, trace.RealTruncated:
		return ""
	}
	if ev.Real != "" {
		return ev.Real
	}
	if ev.Given != "" {
		return d.realpath(ev.Given)
	}
	return d.realpath(ev.Path)
}

func (d *deriver) add(ax policy.Axis, p string) {
	if p != "" {
		d.acc.Paths[ax][p] = true
	}
}

func (d *deriver) created(p string) {
	if p == "" {
		return
	}
	if !d.existed(p) {
		d.acc.Created[p] = true
	}
	delete(d.acc.Removed, p)
}

func (d *deriver) removed(p string) {
	if p != "" {
		d.acc.Removed[p] = true
	}
}

func (d *deriver) observe(ev *trace.Event) {
	if ev.Failed() {
		return
	}
	switch ev.Op {
	case trace.OpOpen:
		if ev.PathOnly() {
			return
		}
		p := d.target(ev)
		if p == "" {
			return
		}
		switch ev.Axis {
		case trace.AxisWrite:
			d.add(policy.Write, p)
			if ev.Flags&unix.O_ACCMODE == unix.O_RDWR {
				d.add(policy.Read, p)
			}
			if ev.Flags&unix.O_CREAT != 0 {
				d.created(p)
			}
		case trace.AxisRead:
			d.add(policy.Read, p)
			if ev.Flags&unix.O_DIRECTORY != 0 {
				d.acc.Listed[p] = true
			}
		}
	case trace.OpExec:
		if ev.Path2 != "" {
			return // a loader execution derived by a reader: Derive finds those itself
		}
		d.add(policy.Execute, d.realpath(ev.Path))
		d.add(policy.Execute, d.target(ev))
		d.add(policy.Execute, ev.Interp) // a script's interpreter: Real is the script
	case trace.OpTruncate:
		d.add(policy.Write, d.target(ev))
	case trace.OpMkdir, trace.OpSymlink:
		p := d.entry(ev.Path)
		d.add(policy.Write, p)
		d.created(p)
	case trace.OpUnlink, trace.OpRmdir:
		p := d.entry(ev.Path)
		d.add(policy.Write, p)
		d.removed(p)
	case trace.OpRename:
		from, to := d.entry(ev.Path), d.entry(ev.Path2)
		d.add(policy.Write, from)
		d.add(policy.Write, to)
		d.removed(from)
		d.created(to)
	case trace.OpLink:
		to := d.entry(ev.Path2)
		d.add(policy.Write, to)
		d.created(to)
	case trace.OpChmod, trace.OpChown, trace.OpSetxattr:
		// Metadata changes count as writes (the published specs list
		// chmod'ed files under write); Landlock does not restrict them.
		d.add(policy.Write, d.metadataTarget(ev))
	case trace.OpMknod:
		p := d.entry(ev.Path)
		d.add(policy.Write, p)
		d.created(p)
	}
}

// metadataTarget is the file a chmod, chown or setxattr event changed:
// the descriptor's or the followed name's file, or for the calls that do
// not follow a final symlink (lchown, lsetxattr, lremovexattr, and the
// *at calls with AT_SYMLINK_NOFOLLOW, which the event cannot tell apart:
// taken as following) the link itself.
func (d *deriver) metadataTarget(ev *trace.Event) string {
	switch ev.Syscall {
	case "lchown", "lsetxattr", "lremovexattr":
		return d.entry(ev.Path)
	}
	if ev.Real != "" {
		return ev.Real
	}
	return d.realpath(ev.Path)
}

// systemDirs are directories a program may chdir into that are never a
// task's working directory.
var systemDirs = []string{"/", "/proc", "/sys", "/dev", "/etc", "/usr", "/bin", "/sbin", "/lib", "/lib64", "/tmp", "/var/tmp", "/run", "/solution", "/logs", "/tests"}

// WorkingDirs lists (sorted) the directories the run changed into that
// are not system directories (nor below /proc, /sys, /dev, /usr):
// candidates for scored_roots.
func WorkingDirs(events []trace.Event) []string {
	set := map[string]bool{}
	for i := range events {
		ev := &events[i]
		if ev.Op != trace.OpChdir || ev.Failed() {
			continue
		}
		d := ev.Target()
		if d == "" || isSystemDir(d) {
			continue
		}
		set[d] = true
	}
	return sortedKeys(set)
}

func isSystemDir(d string) bool {
	for _, s := range systemDirs {
		if d == s {
			return true
		}
	}
	for _, s := range []string{"/proc", "/sys", "/dev", "/usr"} {
		if within(d, s) {
			return true
		}
	}
	return false
}
