package policy

import (
	"path"
	"syscall"
)

// Operation is one file operation as the tracer records it: Op is
// "open", "exec", "mkdir", "unlink", "rmdir", "rename", "link",
// "symlink" or "truncate"; Path is its (first) path, Path2 the new name
// of a rename or link (for symlink, Path is the new link). Flags are the
// open flags.
type Operation struct {
	Op    string
	Path  string
	Path2 string
	Flags uint64
}

// grant is every right of Rights on Path.
type grant struct {
	path   string
	rights Access
}

// need is one check Landlock makes: satisfied when any alternative is
// granted.
type need []grant

// needs lists the checks Landlock makes for op, with paths resolved by
// realpath. An operation Landlock does not restrict (chdir, fork, exit)
// needs nothing.
func (op Operation) needs(realpath func(string) string) []need {
	p := realpath(op.Path)
	parent := realpath(path.Dir(op.Path))
	switch op.Op {
	case "exec":
		return []need{{{p, AccessExecute}}}
	case "open":
		return op.openNeeds(p, parent)
	case "truncate":
		return []need{{{p, AccessTruncate}}}
	case "mkdir":
		return []need{{{parent, AccessMakeDir}}}
	case "unlink":
		return []need{{{parent, AccessRemoveFile}}}
	case "rmdir":
		return []need{{{parent, AccessRemoveDir}}}
	case "symlink":
		return []need{{{parent, AccessMakeSym}}}
	case "link", "rename":
		to := realpath(path.Dir(op.Path2))
		ns := []need{{{to, AccessMakeReg}, {to, AccessMakeDir}, {to, AccessMakeSym}, {to, AccessMakeSock}, {to, AccessMakeFifo}}}
		if op.Op == "rename" {
			ns = append(ns, need{{parent, AccessRemoveFile}, {parent, AccessRemoveDir}})
		}
		if to != parent {
			ns = append(ns, need{{parent, AccessRefer}}, need{{to, AccessRefer}})
		}
		return ns
	}
	return nil
}

// openNeeds: reading needs read_file (read_dir for a directory); writing
// an existing file needs write_file, creating one make_reg on its
// directory; the trace does not say which happened, so with O_CREAT
// either suffices.
func (op Operation) openNeeds(p, parent string) []need {
	mode := op.Flags & syscall.O_ACCMODE
	creating := op.Flags&syscall.O_CREAT != 0
	withCreate := func(n need) need {
		if creating {
			n = append(n, grant{parent, AccessMakeReg})
		}
		return n
	}
	var ns []need
	if mode == syscall.O_RDONLY || mode == syscall.O_RDWR {
		ns = append(ns, withCreate(need{{p, AccessReadFile}, {p, AccessReadDir}}))
	}
	if mode == syscall.O_WRONLY || mode == syscall.O_RDWR {
		ns = append(ns, withCreate(need{{p, AccessWriteFile}}))
	}
	if op.Flags&syscall.O_TRUNC != 0 {
		ns = append(ns, withCreate(need{{p, AccessTruncate}}))
	}
	return ns
}

// Permits reports whether the plan's rules allow op, judged on the
// realpaths that realpath returns (e.g. Root.Realpath of the run's
// root). Landlock is only one gate: a permitted operation can still fail
// with EACCES on file modes.
func (pl *Plan) Permits(op Operation, realpath func(string) string) bool {
	for _, n := range op.needs(realpath) {
		ok := false
		for _, g := range n {
			if pl.Allowed(g.path).Has(g.rights) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}
