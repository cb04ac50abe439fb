package policy

import (
	"path"

	"golang.org/x/sys/unix"
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
	// Target says what an open found before the call, when the caller
	// knows; the trace alone does not say.
	Target TargetState
}

// TargetState is what is known of an open's path before the call.
type TargetState uint8

// Target states.
const (
	// TargetUnknown: an open with O_CREAT and without O_EXCL may have
	// found the file or created it, and a read-only open may have opened
	// a file or a directory; the plan permits the open when it permits
	// one of the cases.
	TargetUnknown TargetState = iota
	// TargetMissing: nothing existed; O_CREAT creates a file.
	TargetMissing
	// TargetFile: a file (not a directory) existed; O_CREAT creates
	// nothing.
	TargetFile
	// TargetDir: a directory existed.
	TargetDir
)

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
		// the kernel opens the program for reading and execution
		return []need{{{p, AccessExecute}}, {{p, AccessReadFile}}}
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

// openNeeds lists what Landlock checks for an open (its file_open,
// path_mknod and file_truncate hooks): the opened file needs READ_FILE
// when it is opened for reading (READ_DIR for a directory; either when
// nobody knows which it was) and WRITE_FILE when for writing, whether it
// existed or was just created;
// creating it needs MAKE_REG on its directory as well; O_TRUNC needs
// TRUNCATE on a file that existed (a file the open creates is not
// truncated). An O_PATH open is not checked. When the trace cannot say
// whether an O_CREAT open created its file (no O_EXCL, Target unknown),
// the open is permitted when either case is: the read and write rights
// are needed in both, and then TRUNCATE on the file (when O_TRUNC) or
// MAKE_REG on its directory.
func (op Operation) openNeeds(p, parent string) []need {
	if op.Flags&unix.O_PATH != 0 {
		return nil
	}
	creating := op.Flags&unix.O_CREAT != 0
	created := creating && (op.Flags&unix.O_EXCL != 0 || op.Target == TargetMissing)
	existed := !creating || op.Target == TargetFile || op.Target == TargetDir
	var ns []need
	switch op.Flags & unix.O_ACCMODE {
	case unix.O_RDONLY:
		switch {
		case op.Flags&unix.O_DIRECTORY != 0 || op.Target == TargetDir:
			ns = append(ns, need{{p, AccessReadDir}})
		case creating || op.Target != TargetUnknown: // O_CREAT never opens a directory
			ns = append(ns, need{{p, AccessReadFile}})
		default:
			ns = append(ns, need{{p, AccessReadFile}, {p, AccessReadDir}})
		}
	case unix.O_WRONLY:
		ns = append(ns, need{{p, AccessWriteFile}})
	case unix.O_RDWR:
		ns = append(ns, need{{p, AccessReadFile}}, need{{p, AccessWriteFile}})
	}
	trunc := op.Flags&unix.O_TRUNC != 0
	switch {
	case created:
		ns = append(ns, need{{parent, AccessMakeReg}})
	case existed:
		if trunc {
			ns = append(ns, need{{p, AccessTruncate}})
		}
	case trunc: // unknown: truncated an existing file, or created one
		ns = append(ns, need{{p, AccessTruncate}, {parent, AccessMakeReg}})
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
