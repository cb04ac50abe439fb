package trace

import (
	"path"
	"strings"
)

// LoaderExec is a program run through the dynamic loader: a process
// executed ld.so itself (`/lib64/ld-linux-x86-64.so.2 /path/prog`), and
// the loader opened the program to map and run it. Landlock cannot stop
// this (the program only needs to be readable), so the trace must count
// it as an execute of the program (docs/security.md).
type LoaderExec struct {
	// TS, PID and TGID are those of the loader's open of the program.
	TS   int64 `json:"ts"`
	PID  int   `json:"pid"`
	TGID int   `json:"tgid"`
	// Loader is the path the process executed.
	Loader string `json:"loader"`
	// Program is the program the loader opened.
	Program string `json:"program"`
	// Ret is the open's result: 0 or more when the program was mapped,
	// -errno when the loader could not open it (an attempt).
	Ret int64 `json:"ret"`
}

// IsLoaderPath reports whether p names a dynamic loader
// (ld-linux-x86-64.so.2, ld-linux-aarch64.so.1, ld-musl-x86_64.so.1,
// ld.so, ld-2.36.so, ...).
func IsLoaderPath(p string) bool {
	b := path.Base(p)
	return b == "ld.so" || strings.HasPrefix(b, "ld-linux") && strings.Contains(b, ".so") ||
		strings.HasPrefix(b, "ld-musl-") && strings.Contains(b, ".so") ||
		strings.HasPrefix(b, "ld-") && strings.HasSuffix(b, ".so")
}

// FindLoaderExecs scans events in time order and returns every program
// run through an explicitly executed dynamic loader (see
// LoaderExecDetector); resolve may be nil.
func FindLoaderExecs(events []Event, resolve func(string) string) []LoaderExec {
	d := LoaderExecDetector{Resolve: resolve}
	var out []LoaderExec
	for i := range events {
		if le, ok := d.Observe(&events[i]); ok {
			out = append(out, le)
		}
	}
	return out
}

// LoaderExecDetector finds programs run through the dynamic loader in a
// stream of events: after a successful exec of a loader, the first file
// that process opens is the program (the loader maps it before its cache
// and libraries). `ldd` runs the loader with --list and is reported too:
// the loader maps the program either way. The zero value is ready; it
// holds one entry per process between its loader exec and first open.
type LoaderExecDetector struct {
	// Resolve, when set, maps an exec path to its realpath before it is
	// compared with loader names, so that a symlink with another name
	// (ln -s /lib64/ld-linux-x86-64.so.2 /tmp/x) is recognised too.
	Resolve func(string) string

	loaderOf map[int]string // pid → loader it runs, until its first open
}

// Observe feeds one event (in time order) and reports a program run
// through the loader when ev is the loader's open of it.
func (d *LoaderExecDetector) Observe(ev *Event) (LoaderExec, bool) {
	switch ev.Op {
	case OpExec:
		if ev.Ret != 0 {
			return LoaderExec{}, false
		}
		if d.isLoader(ev.Path) {
			if d.loaderOf == nil {
				d.loaderOf = map[int]string{}
			}
			d.loaderOf[ev.PID] = ev.Path
		} else {
			delete(d.loaderOf, ev.PID)
		}
	case OpOpen:
		loader, ok := d.loaderOf[ev.PID]
		if !ok || ev.Path == "" {
			return LoaderExec{}, false
		}
		delete(d.loaderOf, ev.PID)
		return LoaderExec{TS: ev.TS, PID: ev.PID, TGID: ev.TGID, Loader: loader, Program: ev.Path, Ret: ev.Ret}, true
	case OpExit:
		delete(d.loaderOf, ev.PID)
	}
	return LoaderExec{}, false
}

func (d *LoaderExecDetector) isLoader(p string) bool {
	if IsLoaderPath(p) {
		return true
	}
	return d.Resolve != nil && IsLoaderPath(d.Resolve(p))
}

// ExecEvent returns the loader run as the execute event it amounts to:
// an exec of the program at the time the loader opened it, with the
// loader as Path2 (a real exec event never has a Path2), so that a log
// reader can tell it was derived.
func (l LoaderExec) ExecEvent() Event {
	ev := Event{TS: l.TS, PID: l.PID, TGID: l.TGID, Comm: path.Base(l.Loader), Op: OpExec,
		Path: l.Program, Path2: l.Loader, Axis: AxisExecute, Ret: min(l.Ret, 0)}
	if ev.Ret < 0 {
		ev.Errno = ErrnoName(-ev.Ret)
	}
	return ev
}
