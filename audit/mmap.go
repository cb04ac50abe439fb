package audit

import (
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/tracer/trace"
)

// MaxWrittenFiles bounds the files an Auditor remembers the tree wrote.
// Past it, no mapping is exempt as a system library any more (fail
// closed): every file mapped executable without an execute right is listed.
const MaxWrittenFiles = 1 << 16

// fileID identifies a file across renames and links.
type fileID struct{ dev, ino uint64 }

// libraryDirs are the directories whose libraries the dynamic loader maps
// for every dynamically linked program: mapping them executable is how an
// allowed program runs, not code run around the policy.
var libraryDirs = policy.SharedLibraryDirs()

// noteWrite remembers the file a successful write-open reached, so that a
// library the tree wrote is never taken for a system library.
func (a *Auditor) noteWrite(ev *trace.Event) {
	if ev.Op != trace.OpOpen || ev.Failed() || ev.Axis != trace.AxisWrite || ev.Ino == 0 {
		return
	}
	if a.written == nil {
		a.written = map[fileID]bool{}
	}
	if len(a.written) >= MaxWrittenFiles {
		a.writtenOverflow = true
		return
	}
	a.written[fileID{ev.Dev, ev.Ino}] = true
}

// systemLibrary reports whether a file mapped executable is one the
// dynamic loader maps for any program: it lies in a shared-library
// directory and the tree did not write it in this run.
func (a *Auditor) systemLibrary(ev *trace.Event) bool {
	if a.writtenOverflow || a.written[fileID{ev.Dev, ev.Ino}] {
		return false
	}
	for _, dir := range libraryDirs {
		if dir.Match(ev.Real) {
			return true
		}
	}
	return false
}
