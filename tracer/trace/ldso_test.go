package trace

import (
	"reflect"
	"testing"
)

func TestIsLoaderPath(t *testing.T) {
	for p, want := range map[string]bool{
		"/lib64/ld-linux-x86-64.so.2":                    true,
		"/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2": true,
		"/lib/ld-linux-aarch64.so.1":                     true,
		"/lib/ld-musl-x86_64.so.1":                       true,
		"/lib/ld-2.31.so":                                true,
		"/usr/bin/ld.so":                                 true,
		"/usr/bin/ld":                                    false,
		"/usr/bin/ldd":                                   false,
		"/usr/lib/libld-linux.a":                         false,
		"/bin/true":                                      false,
	} {
		if got := IsLoaderPath(p); got != want {
			t.Errorf("IsLoaderPath(%s) = %v", p, got)
		}
	}
}

func TestFindLoaderExecs(t *testing.T) {
	const ld = "/lib64/ld-linux-x86-64.so.2"
	events := []Event{
		// pid 10: ld.so /work/prog — an execute of prog
		{TS: 1, PID: 10, TGID: 10, Op: OpExec, Path: ld},
		{TS: 2, PID: 10, TGID: 10, Op: OpOpen, Path: "/work/prog", Ret: 3},
		{TS: 3, PID: 10, TGID: 10, Op: OpOpen, Path: "/etc/ld.so.cache", Ret: 3},
		{TS: 4, PID: 10, TGID: 10, Op: OpOpen, Path: "/lib/x86_64-linux-gnu/libc.so.6", Ret: 3},
		// pid 11: an ordinary dynamic program (the kernel maps the loader; no open of it)
		{TS: 5, PID: 11, TGID: 11, Op: OpExec, Path: "/usr/bin/cat"},
		{TS: 6, PID: 11, TGID: 11, Op: OpOpen, Path: "/etc/ld.so.cache", Ret: 3},
		// pid 12: a failed exec of the loader
		{TS: 7, PID: 12, TGID: 12, Op: OpExec, Path: ld, Ret: -13},
		{TS: 8, PID: 12, TGID: 12, Op: OpOpen, Path: "/work/other", Ret: 3},
		// pid 13: the loader could not open the program (denied)
		{TS: 9, PID: 13, TGID: 13, Op: OpExec, Path: ld},
		{TS: 10, PID: 13, TGID: 13, Op: OpOpen, Path: "/secret/prog", Ret: -13},
		// pid 14: exec of the loader, then exec of something else before any open
		{TS: 11, PID: 14, TGID: 14, Op: OpExec, Path: ld},
		{TS: 12, PID: 14, TGID: 14, Op: OpExec, Path: "/usr/bin/env"},
		{TS: 13, PID: 14, TGID: 14, Op: OpOpen, Path: "/etc/ld.so.cache", Ret: 3},
	}
	got := FindLoaderExecs(events, nil)
	want := []LoaderExec{
		{TS: 2, PID: 10, TGID: 10, Loader: ld, Program: "/work/prog", Ret: 3},
		{TS: 10, PID: 13, TGID: 13, Loader: ld, Program: "/secret/prog", Ret: -13},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	ev := got[0].ExecEvent()
	if ev.Op != OpExec || ev.Path != "/work/prog" || ev.Path2 != ld || ev.Axis != AxisExecute || ev.Ret != 0 {
		t.Errorf("ExecEvent = %+v", ev)
	}
	if ev := got[1].ExecEvent(); ev.Ret != -13 || ev.Errno != "EACCES" {
		t.Errorf("denied ExecEvent ret = %d", ev.Ret)
	}
}

// TestLoaderBehindSymlink: a symlink with another name to the loader is
// recognised through Resolve.
func TestLoaderBehindSymlink(t *testing.T) {
	events := []Event{
		{TS: 1, PID: 20, Op: OpExec, Path: "/tmp/innocent"},
		{TS: 2, PID: 20, Op: OpOpen, Path: "/work/prog", Ret: 3},
	}
	if got := FindLoaderExecs(events, nil); len(got) != 0 {
		t.Fatalf("without Resolve: %+v", got)
	}
	resolve := func(p string) string {
		if p == "/tmp/innocent" {
			return "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"
		}
		return p
	}
	got := FindLoaderExecs(events, resolve)
	if len(got) != 1 || got[0].Program != "/work/prog" || got[0].Loader != "/tmp/innocent" {
		t.Fatalf("with Resolve: %+v", got)
	}
}
