package tracer

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"path"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/tracer/trace"
)

// Layout of struct ab_event (bpf/tracer.h); TestRecordLayout pins these
// offsets against the bpf2go-generated type.
const (
	offSession = 0
	offTS      = 8
	offRet     = 16
	offFlags   = 24
	offStart   = 32
	offPStart  = 40
	offIno     = 48
	offDev     = 56
	offPID     = 60
	offTGID    = 64
	offPPID    = 68
	offOp      = 72
	offInfo    = 74
	offLen     = 76 // len[0..4]
	offComm    = 86
	commLen    = 16
	offLen5    = 102 // len5, len6
	offSys     = 106
	nParts     = 7
	hdrSize    = 112

	opSync     = 13 // AB_OP_SYNC: a drain marker, not an event
	opExecCode = 2  // AB_OP_EXEC (opByCode)
)

// Bits of ab_event.info (enum ab_info).
const (
	infoFlags   = 1 << 0
	infoTrunc   = 1 << 1
	infoFault   = 1 << 2
	infoDevFD   = 1 << 3 // exec of /dev/fd/N[/name]: the path is the walked file
	infoRaw2    = 1 << 4
	infoNoBase  = 1 << 5
	infoReal    = 1 << 6  // part 4, dev and ino describe the file opened
	infoRTrunc  = 1 << 7  // the real path did not fit
	infoDeleted = 1 << 8  // the file opened was unlinked
	infoUnreach = 1 << 9  // the file is not below the task's root
	infoURing   = 1 << 10 // submitted through io_uring
	infoNoName  = 1 << 11 // the call names no path (open_by_handle_at)
	infoITrunc  = 1 << 12 // exec: the interpreter's path did not fit
	infoLdTrunc = 1 << 13 // exec: ld_env cut or incomplete
	infoPreTrk  = 1 << 14 // exec: began before the process was tracked
)

// partLenOff is the offset of the length of data part i.
func partLenOff(i int) int {
	if i < 5 {
		return offLen + 2*i
	}
	return offLen5 + 2*(i-5)
}

var errShortRecord = errors.New("record shorter than its header")

// record is the fixed part of a raw ring-buffer record.
type record struct {
	session uint64
	op      uint8
	seq     uint64 // ts field; the sequence number of a drain marker
	// preTrack marks an exec that began before its process was tracked
	// (see TrackOptions.FromExec).
	preTrack bool
}

func peekRecord(raw []byte) (record, error) {
	if len(raw) < hdrSize {
		return record{}, errShortRecord
	}
	le := binary.LittleEndian
	return record{
		session:  le.Uint64(raw[offSession:]),
		op:       raw[offOp],
		seq:      le.Uint64(raw[offTS:]),
		preTrack: raw[offOp] == opExecCode && le.Uint16(raw[offInfo:])&infoPreTrk != 0,
	}, nil
}

// nameCache reuses the strings of process names (comm), which repeat from
// event to event, instead of allocating one per event. The reader
// goroutine owns it; a nil cache allocates.
type nameCache map[string]string

const maxCachedNames = 4096

func (c nameCache) get(b []byte) string {
	b = cBytes(b)
	if c == nil {
		return string(b)
	}
	if s, ok := c[string(b)]; ok {
		return s
	}
	if len(c) >= maxCachedNames {
		clear(c)
	}
	s := string(b)
	c[s] = s
	return s
}

// decodeEvent turns a raw record into an Event; bootOffset converts the
// kernel's monotonic clock into Unix time.
func decodeEvent(raw []byte, bootOffset int64, names nameCache) (trace.Event, error) {
	if len(raw) < hdrSize {
		return trace.Event{}, errShortRecord
	}
	le := binary.LittleEndian
	code := raw[offOp]
	if int(code) >= len(opByCode) || opByCode[code] == "" {
		return trace.Event{}, fmt.Errorf("unknown operation code %d", code)
	}
	info := le.Uint16(raw[offInfo:])
	ev := trace.Event{
		TS:     int64(le.Uint64(raw[offTS:])) + bootOffset,
		Ret:    int64(le.Uint64(raw[offRet:])),
		PID:    int(le.Uint32(raw[offPID:])),
		TGID:   int(le.Uint32(raw[offTGID:])),
		PPID:   int(le.Uint32(raw[offPPID:])),
		Start:  le.Uint64(raw[offStart:]),
		PStart: le.Uint64(raw[offPStart:]),
		Op:     opByCode[code],
		Comm:   names.get(raw[offComm : offComm+commLen]),
		Flags:  le.Uint64(raw[offFlags:]),
		URing:  info&infoURing != 0,
	}
	var parts [nParts][]byte
	data := raw[hdrSize:]
	for i := range parts {
		n := int(le.Uint16(raw[partLenOff(i):]))
		if n > len(data) {
			return trace.Event{}, fmt.Errorf("%s record: part %d is %d bytes, %d left", ev.Op, i, n, len(data))
		}
		parts[i], data = data[:n], data[n:]
	}
	name1, name2 := cString(parts[0]), cString(parts[2])
	if sys := int(le.Uint16(raw[offSys:])); sys < len(syscallByCode) && (ev.Op == trace.OpMmap || trace.CapabilityOp(ev.Op)) {
		ev.Syscall = syscallByCode[sys]
	}
	if ev.Op != trace.OpFork && ev.Op != trace.OpExit && ev.Op != trace.OpURingSetup && info&infoNoName == 0 {
		ev.Path = resolve(name1, parts[1], info)
		ev.Given = unclean(name1, parts[1], info)
	}
	if info&infoReal != 0 {
		ev.Dev = kernelDev(le.Uint32(raw[offDev:]))
		ev.Ino = le.Uint64(raw[offIno:])
		switch {
		case info&infoUnreach != 0:
			ev.RealState = trace.RealUnreachable
		case info&infoRTrunc != 0:
			ev.RealState = trace.RealTruncated
		default:
			ev.Real = realPath(parts[4], ev.Path)
			if info&infoDeleted != 0 {
				ev.RealState = trace.RealDeleted
			}
		}
	}
	if ev.Op == trace.OpMmap {
		ev.Path = ev.Real
	}
	if ev.Op == trace.OpExec {
		if len(parts[5]) > 0 {
			ev.Interp = dirPath(parts[5])
		}
		ev.LdEnv = splitCStrings(parts[6])
		ev.LdEnvTruncated = info&infoLdTrunc != 0
	}
	switch {
	case info&infoRaw2 != 0 && len(parts[2]) > 0:
		ev.Path2 = joinClean(path.Dir(ev.Path), name2)
	case len(parts[2]) > 0:
		ev.Path2 = resolve(name2, parts[3], info)
	}
	if info&infoFlags == 0 {
		ev.Flags = 0
	}
	ev.Axis = trace.AxisOf(ev.Op, ev.Flags)
	switch {
	case ev.Failed():
		ev.Errno = trace.ErrnoName(-ev.Ret)
	case ev.Op != trace.OpExit:
		ev.Ret = 0 // success: a descriptor number is of no interest
	}
	ev.Incomplete = info&(infoTrunc|infoFault|infoITrunc) != 0
	return ev, nil
}

// kernelDev converts the kernel's dev_t (major << 20 | minor) into the
// st_dev encoding of stat(2).
func kernelDev(d uint32) uint64 {
	return unix.Mkdev(d>>20, d&(1<<20-1))
}

// resolve joins a name as given with its base directory (names from the
// leaf up, each NUL-terminated) and cleans the result lexically.
func resolve(name string, dir []byte, info uint16) string {
	if strings.HasPrefix(name, "/") {
		return path.Clean(name)
	}
	if len(dir) == 0 {
		if info&infoNoBase != 0 || (name == "" && info&infoFault != 0) {
			return name // unknown base (bad descriptor) or unreadable name
		}
		return joinClean("/", name) // the base is the root itself
	}
	return joinClean(dirPath(dir), name)
}

// unclean is the name joined with its base but not cleaned, when the name
// has a ".." component: after a symlink, ".." leaves the link's target,
// so the lexically clean path may name another file. Otherwise "".
func unclean(name string, dir []byte, info uint16) string {
	if !hasDotDot(name) {
		return ""
	}
	switch {
	case strings.HasPrefix(name, "/") || (len(dir) == 0 && info&infoNoBase != 0):
		return name
	case len(dir) == 0:
		return "/" + name
	}
	return dirPath(dir) + "/" + name
}

func hasDotDot(name string) bool {
	if !strings.Contains(name, "..") {
		return false
	}
	for name != "" {
		var part string
		part, name, _ = strings.Cut(name, "/")
		if part == ".." {
			return true
		}
	}
	return false
}

// dirPath turns leaf-first NUL-terminated names into an absolute path.
func dirPath(dir []byte) string {
	var buf [512]byte
	return string(appendDirPath(buf[:0], dir))
}

// appendDirPath appends the absolute path of leaf-first NUL-terminated
// names to b: each name's NUL becomes the "/" before it, so the path is
// as long as the names (one allocation at most, none when b has room).
func appendDirPath(b, dir []byte) []byte {
	if len(dir) > 0 && dir[len(dir)-1] != 0 {
		dir = append(dir[:len(dir):len(dir)], 0)
	}
	if len(dir) == 0 {
		return append(b, '/')
	}
	start := len(b)
	b = append(b, make([]byte, len(dir))...)
	out := b[start:]
	w := len(out)
	for len(dir) > 0 {
		i := bytes.IndexByte(dir, 0)
		name := dir[:i]
		dir = dir[i+1:]
		w -= len(name)
		copy(out[w:], name)
		w--
		out[w] = '/'
	}
	return b
}

// realPath is the path of the real-path names, sharing the string of
// the name as given when they are the same (the common case: no symlink
// on the way), so it costs no allocation then.
func realPath(names []byte, given string) string {
	var buf [512]byte
	b := appendDirPath(buf[:0], names)
	if string(b) == given {
		return given
	}
	return string(b)
}

func joinClean(dir, name string) string {
	if strings.HasPrefix(name, "/") {
		return path.Clean(name)
	}
	if name == "" {
		return path.Clean(dir)
	}
	return path.Clean(dir + "/" + name)
}

func cString(b []byte) string { return string(cBytes(b)) }

// splitCStrings splits NUL-terminated strings; nil when there are none.
func splitCStrings(b []byte) []string {
	var out []string
	for len(b) > 0 {
		s := cBytes(b)
		out = append(out, string(s))
		if len(s) == len(b) {
			break
		}
		b = b[len(s)+1:]
	}
	return out
}

// cBytes is b up to its first NUL.
func cBytes(b []byte) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return b
}
