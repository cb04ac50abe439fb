package tracer

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"path"
	"strings"
)

// Layout of struct ab_event (bpf/tracer.h); TestRecordLayout pins these
// offsets against the bpf2go-generated type.
const (
	offSession = 0
	offTS      = 8
	offRet     = 16
	offFlags   = 24
	offPID     = 32
	offTGID    = 36
	offPPID    = 40
	offOp      = 44
	offInfo    = 45
	offLen     = 46
	offComm    = 54
	commLen    = 16
	hdrSize    = 72

	opSync = 13 // AB_OP_SYNC: a drain marker, not an event
)

// Bits of ab_event.info (enum ab_info).
const (
	infoFlags  = 1 << 0
	infoTrunc  = 1 << 1
	infoFault  = 1 << 2
	infoDevFD  = 1 << 3 // exec of /dev/fd/N[/name]: the path is the walked file
	infoRaw2   = 1 << 4
	infoNoBase = 1 << 5
)

var errShortRecord = errors.New("record shorter than its header")

// record is the fixed part of a raw ring-buffer record.
type record struct {
	session uint64
	op      uint8
	seq     uint64 // ts field; the sequence number of a drain marker
}

func peekRecord(raw []byte) (record, error) {
	if len(raw) < hdrSize {
		return record{}, errShortRecord
	}
	le := binary.LittleEndian
	return record{
		session: le.Uint64(raw[offSession:]),
		op:      raw[offOp],
		seq:     le.Uint64(raw[offTS:]),
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
func decodeEvent(raw []byte, bootOffset int64, names nameCache) (Event, error) {
	if len(raw) < hdrSize {
		return Event{}, errShortRecord
	}
	le := binary.LittleEndian
	code := raw[offOp]
	if int(code) >= len(opByCode) || opByCode[code] == "" {
		return Event{}, fmt.Errorf("unknown operation code %d", code)
	}
	info := raw[offInfo]
	ev := Event{
		TS:    int64(le.Uint64(raw[offTS:])) + bootOffset,
		Ret:   int64(le.Uint64(raw[offRet:])),
		PID:   int(le.Uint32(raw[offPID:])),
		TGID:  int(le.Uint32(raw[offTGID:])),
		PPID:  int(le.Uint32(raw[offPPID:])),
		Op:    opByCode[code],
		Comm:  names.get(raw[offComm : offComm+commLen]),
		Flags: le.Uint64(raw[offFlags:]),
	}
	var parts [4][]byte
	data := raw[hdrSize:]
	for i := range parts {
		n := int(le.Uint16(raw[offLen+2*i:]))
		if n > len(data) {
			return Event{}, fmt.Errorf("%s record: part %d is %d bytes, %d left", ev.Op, i, n, len(data))
		}
		parts[i], data = data[:n], data[n:]
	}
	name1, name2 := cString(parts[0]), cString(parts[2])
	if ev.Op != OpFork && ev.Op != OpExit {
		ev.Path = resolve(name1, parts[1], info)
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
	ev.Axis = AxisOf(ev.Op, ev.Flags)
	switch {
	case ev.Failed():
		ev.Errno = ErrnoName(-ev.Ret)
	case ev.Op != OpExit:
		ev.Ret = 0 // success: a descriptor number is of no interest
	}
	ev.Incomplete = info&(infoTrunc|infoFault) != 0
	return ev, nil
}

// resolve joins a name as given with its base directory (names from the
// leaf up, each NUL-terminated) and cleans the result lexically.
func resolve(name string, dir []byte, info uint8) string {
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

// dirPath turns leaf-first NUL-terminated names into an absolute path.
func dirPath(dir []byte) string {
	names := bytes.Split(bytes.TrimSuffix(dir, []byte{0}), []byte{0})
	var b strings.Builder
	for i := len(names) - 1; i >= 0; i-- {
		b.WriteByte('/')
		b.Write(names[i])
	}
	if b.Len() == 0 {
		return "/"
	}
	return b.String()
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

// cBytes is b up to its first NUL.
func cBytes(b []byte) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return b
}
