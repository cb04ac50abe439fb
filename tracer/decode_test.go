package tracer

import (
	"encoding/binary"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/bpf"
	"github.com/authbench/authbench/tracer/trace"
)

// TestRecordLayout pins decode.go's offsets to the C struct via the
// bpf2go-generated Go type.
func TestRecordLayout(t *testing.T) {
	var e bpf.TracerAbEvent
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"session", unsafe.Offsetof(e.Session), offSession},
		{"ts", unsafe.Offsetof(e.Ts), offTS},
		{"ret", unsafe.Offsetof(e.Ret), offRet},
		{"flags", unsafe.Offsetof(e.Flags), offFlags},
		{"start", unsafe.Offsetof(e.Start), offStart},
		{"pstart", unsafe.Offsetof(e.Pstart), offPStart},
		{"ino", unsafe.Offsetof(e.Ino), offIno},
		{"dev", unsafe.Offsetof(e.Dev), offDev},
		{"pid", unsafe.Offsetof(e.Pid), offPID},
		{"tgid", unsafe.Offsetof(e.Tgid), offTGID},
		{"ppid", unsafe.Offsetof(e.Ppid), offPPID},
		{"op", unsafe.Offsetof(e.Op), offOp},
		{"info", unsafe.Offsetof(e.Info), offInfo},
		{"len", unsafe.Offsetof(e.Len), offLen},
		{"comm", unsafe.Offsetof(e.Comm), offComm},
		{"len5", unsafe.Offsetof(e.Len5), offLen5},
		{"len6", unsafe.Offsetof(e.Len6), offLen5 + 2},
		{"sys", unsafe.Offsetof(e.Sys), offSys},
		{"data", unsafe.Offsetof(e.Data), hdrSize},
	} {
		if c.got != c.want {
			t.Errorf("offset of %s: C has %d, decoder uses %d", c.name, c.got, c.want)
		}
	}
}

// rawRecord builds a record like the kernel writes.
func rawRecord(op uint8, info uint16, ret int64, parts ...string) []byte {
	b := make([]byte, hdrSize)
	le := binary.LittleEndian
	le.PutUint64(b[offSession:], 7)
	le.PutUint64(b[offRet:], uint64(ret))
	le.PutUint32(b[offPID:], 10)
	le.PutUint32(b[offTGID:], 10)
	b[offOp] = op
	le.PutUint16(b[offInfo:], info)
	copy(b[offComm:], "prog")
	for i, p := range parts {
		le.PutUint16(b[partLenOff(i):], uint16(len(p)))
		b = append(b, p...)
	}
	return b
}

func TestDecodePaths(t *testing.T) {
	for _, c := range []struct {
		name  string
		op    uint8
		info  uint16
		parts []string
		path  string
		path2 string
	}{
		{"absolute", 1, infoFlags, []string{"/etc//passwd\x00"}, "/etc/passwd", ""},
		{"relative to cwd", 1, infoFlags, []string{"../x/./y\x00", "b\x00a\x00"}, "/a/x/y", ""},
		{"cwd is root", 1, 0, []string{"f\x00", ""}, "/f", ""},
		{"fd itself (fchdir)", 10, 0, []string{"", "sub\x00tmp\x00"}, "/tmp/sub", ""},
		{"fd is root", 10, 0, []string{"", ""}, "/", ""},
		{"bad dirfd", 1, infoNoBase, []string{"rel\x00"}, "rel", ""},
		{"unreadable name", 1, infoFault, []string{""}, "", ""},
		{"rename", 6, 0, []string{"a\x00", "d\x00", "/x/../b\x00", ""}, "/d/a", "/b"},
		{"symlink target", 8, infoRaw2, []string{"lnk\x00", "d\x00", "../t\x00", ""}, "/d/lnk", "/t"},
		{"exec of /dev/fd/N: the walked file", 2, infoDevFD, []string{"", "prog\x00bin\x00usr\x00"}, "/usr/bin/prog", ""},
		{"chdir that succeeded: the walked cwd", 10, 0, []string{"", "sub\x00d\x00"}, "/d/sub", ""},
		{"non-utf8", 4, 0, []string{"\xff\xfe\x00", "d\x00"}, "/d/\xff\xfe", ""},
	} {
		ev, err := decodeEvent(rawRecord(c.op, c.info, 0, c.parts...), 0, nil)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if ev.Path != c.path || ev.Path2 != c.path2 {
			t.Errorf("%s: path %q path2 %q, want %q %q", c.name, ev.Path, ev.Path2, c.path, c.path2)
		}
	}
}

func TestDecodeResult(t *testing.T) {
	ev, err := decodeEvent(rawRecord(1, infoFlags, -2, "/x\x00"), 0, nil)
	if err != nil || ev.Ret != -2 || ev.Errno != "ENOENT" || ev.Axis != trace.AxisRead {
		t.Errorf("failed open: %+v %v", ev, err)
	}
	ev, _ = decodeEvent(rawRecord(1, infoFlags, 3, "/x\x00"), 0, nil)
	if ev.Ret != 0 || ev.Errno != "" {
		t.Errorf("successful open: ret %d errno %q, want 0 and none", ev.Ret, ev.Errno)
	}
	ev, _ = decodeEvent(rawRecord(12, 0, 137), 0, nil)
	if ev.Ret != 137 || ev.Errno != "" || ev.Path != "" {
		t.Errorf("exit: %+v", ev)
	}
	if _, err := decodeEvent(rawRecord(99, 0, 0), 0, nil); err == nil {
		t.Error("unknown op decoded")
	}
	bad := rawRecord(1, 0, 0, "/x\x00")
	binary.LittleEndian.PutUint16(bad[offLen:], 500)
	if _, err := decodeEvent(bad, 0, nil); err == nil {
		t.Error("record with an overlong part decoded")
	}
	if _, err := decodeEvent(bad[:10], 0, nil); err == nil {
		t.Error("short record decoded")
	}
}

// TestNameCache: process names are decoded to the same string each time
// (no allocation per event), cut at their NUL, and the cache stays bounded.
func TestNameCache(t *testing.T) {
	names := nameCache{}
	a, _ := decodeEvent(rawRecord(1, infoFlags, 0, "/x\x00"), 0, names)
	b, _ := decodeEvent(rawRecord(1, infoFlags, 0, "/y\x00"), 0, names)
	if a.Comm != "prog" || b.Comm != "prog" || unsafe.StringData(a.Comm) != unsafe.StringData(b.Comm) {
		t.Errorf("comm %q and %q are not one cached string", a.Comm, b.Comm)
	}
	if n := testing.AllocsPerRun(100, func() { names.get([]byte("prog\x00\x00")) }); n != 0 {
		t.Errorf("a cached name costs %v allocations", n)
	}
	for i := range 2 * maxCachedNames {
		names.get([]byte(strconv.Itoa(i)))
	}
	if len(names) > maxCachedNames {
		t.Errorf("cache grew to %d names", len(names))
	}
}

// TestDecodeGiven: a name with ".." keeps its unclean form beside the
// clean path.
func TestDecodeGiven(t *testing.T) {
	for _, c := range []struct {
		parts       []string
		path, given string
	}{
		{[]string{"/tmp/l/../shadow\x00"}, "/tmp/shadow", "/tmp/l/../shadow"},
		{[]string{"l/../x\x00", "d\x00"}, "/d/x", "/d/l/../x"},
		{[]string{"/a/..b/c\x00"}, "/a/..b/c", ""},
		{[]string{"/a/./b\x00"}, "/a/b", ""},
	} {
		ev, err := decodeEvent(rawRecord(1, infoFlags, -2, c.parts...), 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		if ev.Path != c.path || ev.Given != c.given {
			t.Errorf("%q: path %q given %q, want %q %q", c.parts, ev.Path, ev.Given, c.path, c.given)
		}
	}
}

// TestDecodeReal: the real path and identity of an opened file, and the
// representation of the files that have no path under the root.
func TestDecodeReal(t *testing.T) {
	for _, c := range []struct {
		name  string
		info  uint16
		parts []string
		path  string
		real  string
		state trace.RealState
	}{
		{"through a symlink", infoFlags | infoReal, []string{"/tmp/l/../shadow\x00", "", "", "", "shadow\x00etc\x00"}, "/tmp/shadow", "/etc/shadow", ""},
		{"the root itself", infoFlags | infoReal, []string{"/\x00", "", "", "", ""}, "/", "/", ""},
		{"deleted", infoFlags | infoReal | infoDeleted, []string{"/tmp/x\x00", "", "", "", "x\x00tmp\x00"}, "/tmp/x", "/tmp/x", trace.RealDeleted},
		{"memfd, pipe or other namespace", infoFlags | infoReal | infoUnreach, []string{"/proc/self/fd/3\x00"}, "/proc/self/fd/3", "", trace.RealUnreachable},
		{"too long", infoFlags | infoReal | infoRTrunc, []string{"/a\x00"}, "/a", "", trace.RealTruncated},
		{"open_by_handle_at", infoFlags | infoReal | infoNoName, []string{"", "", "", "", "f\x00"}, "", "/f", ""},
		{"failed: name only", infoFlags, []string{"/nope\x00"}, "/nope", "", ""},
	} {
		raw := rawRecord(1, c.info, 3, c.parts...)
		binary.LittleEndian.PutUint32(raw[offDev:], 8<<20|3)
		binary.LittleEndian.PutUint64(raw[offIno:], 77)
		ev, err := decodeEvent(raw, 0, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if ev.Path != c.path || ev.Real != c.real || ev.RealState != c.state {
			t.Errorf("%s: path %q real %q state %q, want %q %q %q", c.name, ev.Path, ev.Real, ev.RealState, c.path, c.real, c.state)
		}
		wantIno, wantDev := uint64(0), uint64(0)
		if c.info&infoReal != 0 {
			wantIno, wantDev = 77, unix.Mkdev(8, 3)
		}
		if ev.Ino != wantIno || ev.Dev != wantDev {
			t.Errorf("%s: dev %d ino %d, want %d %d", c.name, ev.Dev, ev.Ino, wantDev, wantIno)
		}
	}
}

// TestSyscallNames pins syscallByCode to enum ab_sys in bpf/syscalls.h.
func TestSyscallNames(t *testing.T) {
	src, err := os.ReadFile("../bpf/syscalls.h")
	if err != nil {
		t.Fatal(err)
	}
	body := regexp.MustCompile(`(?s)enum ab_sys \{(.*?)\};`).FindSubmatch(src)
	if body == nil {
		t.Fatal("enum ab_sys not found in bpf/syscalls.h")
	}
	var names []string
	for _, m := range regexp.MustCompile(`AB_SYS_(\w+)`).FindAllSubmatch(body[1], -1) {
		n := strings.ToLower(string(m[1]))
		switch n {
		case "none":
			n = ""
		case "max":
			continue
		case "open_by_handle":
			n = "open_by_handle_at"
		case "uring_setup":
			n = "io_uring_setup"
		}
		names = append(names, n)
	}
	if strings.Join(names, ",") != strings.Join(syscallByCode[:], ",") {
		t.Errorf("enum ab_sys:\n%q\nsyscallByCode:\n%q", names, syscallByCode)
	}
}

// TestDecodeExecParts: an exec record's interpreter and loader
// environment parts, and the capability and mmap events' syscall names.
func TestDecodeExecParts(t *testing.T) {
	raw := rawRecord(2, infoReal|infoLdTrunc, 0, "/s.sh\x00", "", "", "", "s.sh\x00",
		"dash\x00bin\x00usr\x00", "LD_PRELOAD=/x.so\x00LD_AUDIT=\x00")
	ev, err := decodeEvent(raw, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Real != "/s.sh" || ev.Interp != "/usr/bin/dash" || strings.Join(ev.LdEnv, "|") != "LD_PRELOAD=/x.so|LD_AUDIT=" ||
		!ev.LdEnvTruncated || ev.Syscall != "" {
		t.Errorf("exec: %+v", ev)
	}
	// An interpreter that could not be named: no interp, incomplete.
	ev, err = decodeEvent(rawRecord(2, infoReal|infoITrunc, 0, "/s.sh\x00", "", "", "", "s.sh\x00"), 0, nil)
	if err != nil || ev.Interp != "" || !ev.Incomplete {
		t.Errorf("exec with a cut interpreter: %+v, %v", ev, err)
	}
	for _, c := range []struct {
		op      uint8
		sys     uint16
		info    uint16
		parts   []string
		want    trace.Op
		syscall string
		path    string
	}{
		{15, 26, infoFlags | infoNoName | infoReal, []string{"", "", "", "", "x.so\x00lib\x00"}, trace.OpMmap, "mprotect", "/lib/x.so"},
		{16, 31, 0, []string{"/f\x00"}, trace.OpChown, "fchownat", "/f"},
		{20, 46, infoNoName, nil, trace.OpSetid, "setuid", ""},
		{1, 2, infoFlags, []string{"/f\x00"}, trace.OpOpen, "", "/f"}, // not named for other ops
		{16, 999, 0, []string{"/f\x00"}, trace.OpChown, "", "/f"},     // unknown code: no name
	} {
		raw := rawRecord(c.op, c.info, -1, c.parts...)
		binary.LittleEndian.PutUint16(raw[offSys:], c.sys)
		ev, err := decodeEvent(raw, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		if ev.Op != c.want || ev.Syscall != c.syscall || ev.Path != c.path || ev.Errno != "EPERM" {
			t.Errorf("op %d sys %d: %+v, want %s %q path %q EPERM", c.op, c.sys, ev, c.want, c.syscall, c.path)
		}
	}
}
