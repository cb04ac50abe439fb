package trace

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// AppendJSON appends the JSON object of e (one JSONL line without the
// newline) to buf. Fields appear in a fixed order; path2, given, real,
// real_state, dev/ino (together, when ino is set), interp, ld_env,
// ld_env_truncated, syscall, io_uring and errno are omitted when empty and
// flags is present exactly for open events (an O_RDONLY open has
// "flags":0) and mmap events (the protection bits). docs/trace-events.md
// is the schema.
//
// Strings are file names, which are bytes, not text: valid UTF-8 is
// written as is (with JSON escapes), and every byte that is not part of
// valid UTF-8 is written as the lone surrogate \udcXX (XX the byte, 80-ff),
// the "surrogateescape" convention of Python's os.fsdecode. Python's
// json.loads(...) then os.fsencode(path) returns the exact bytes, and
// Event.UnmarshalJSON reverses it too. Valid UTF-8 never contains such
// surrogates, so the encoding is unambiguous.
func (e *Event) AppendJSON(buf []byte) []byte {
	buf = append(buf, `{"ts":`...)
	buf = strconv.AppendInt(buf, e.TS, 10)
	buf = append(buf, `,"pid":`...)
	buf = strconv.AppendInt(buf, int64(e.PID), 10)
	buf = append(buf, `,"tgid":`...)
	buf = strconv.AppendInt(buf, int64(e.TGID), 10)
	buf = append(buf, `,"ppid":`...)
	buf = strconv.AppendInt(buf, int64(e.PPID), 10)
	buf = append(buf, `,"start":`...)
	buf = strconv.AppendUint(buf, e.Start, 10)
	buf = append(buf, `,"pstart":`...)
	buf = strconv.AppendUint(buf, e.PStart, 10)
	buf = append(buf, `,"comm":`...)
	buf = appendString(buf, e.Comm)
	buf = append(buf, `,"op":`...)
	buf = appendString(buf, string(e.Op))
	buf = append(buf, `,"path":`...)
	buf = appendString(buf, e.Path)
	if e.Path2 != "" {
		buf = append(buf, `,"path2":`...)
		buf = appendString(buf, e.Path2)
	}
	if e.Given != "" {
		buf = append(buf, `,"given":`...)
		buf = appendString(buf, e.Given)
	}
	if e.Real != "" {
		buf = append(buf, `,"real":`...)
		buf = appendString(buf, e.Real)
	}
	if e.RealState != "" {
		buf = append(buf, `,"real_state":`...)
		buf = appendString(buf, string(e.RealState))
	}
	if e.Ino != 0 {
		buf = append(buf, `,"dev":`...)
		buf = strconv.AppendUint(buf, e.Dev, 10)
		buf = append(buf, `,"ino":`...)
		buf = strconv.AppendUint(buf, e.Ino, 10)
	}
	if e.Interp != "" {
		buf = append(buf, `,"interp":`...)
		buf = appendString(buf, e.Interp)
	}
	if len(e.LdEnv) > 0 {
		buf = append(buf, `,"ld_env":[`...)
		for i, v := range e.LdEnv {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendString(buf, v)
		}
		buf = append(buf, ']')
	}
	if e.LdEnvTruncated {
		buf = append(buf, `,"ld_env_truncated":true`...)
	}
	if e.Syscall != "" {
		buf = append(buf, `,"syscall":`...)
		buf = appendString(buf, e.Syscall)
	}
	if e.URing {
		buf = append(buf, `,"io_uring":true`...)
	}
	if e.Op == OpOpen || e.Op == OpMmap {
		buf = append(buf, `,"flags":`...)
		buf = strconv.AppendUint(buf, e.Flags, 10)
	}
	buf = append(buf, `,"axis":`...)
	buf = appendString(buf, string(e.Axis))
	buf = append(buf, `,"ret":`...)
	buf = strconv.AppendInt(buf, e.Ret, 10)
	if e.Errno != "" {
		buf = append(buf, `,"errno":`...)
		buf = appendString(buf, e.Errno)
	}
	return append(buf, '}')
}

// MarshalJSON encodes e as AppendJSON does.
func (e Event) MarshalJSON() ([]byte, error) { return e.AppendJSON(nil), nil }

// UnmarshalJSON decodes an event written by MarshalJSON, restoring the
// bytes of names that are not UTF-8.
func (e *Event) UnmarshalJSON(data []byte) error {
	type plain Event
	var raw struct {
		plain
		Comm   json.RawMessage   `json:"comm"`
		Path   json.RawMessage   `json:"path"`
		Path2  json.RawMessage   `json:"path2"`
		Given  json.RawMessage   `json:"given"`
		Real   json.RawMessage   `json:"real"`
		Interp json.RawMessage   `json:"interp"`
		LdEnv  []json.RawMessage `json:"ld_env"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*e = Event(raw.plain)
	fields := []struct {
		dst *string
		src json.RawMessage
	}{{&e.Comm, raw.Comm}, {&e.Path, raw.Path}, {&e.Path2, raw.Path2}, {&e.Given, raw.Given}, {&e.Real, raw.Real}, {&e.Interp, raw.Interp}}
	if raw.LdEnv != nil {
		e.LdEnv = make([]string, len(raw.LdEnv))
		for i := range raw.LdEnv {
			fields = append(fields, struct {
				dst *string
				src json.RawMessage
			}{&e.LdEnv[i], raw.LdEnv[i]})
		}
	}
	for _, f := range fields {
		if len(f.src) == 0 || string(f.src) == "null" {
			continue
		}
		s, err := unquoteBytes(f.src)
		if err != nil {
			return fmt.Errorf("decode event: %w", err)
		}
		*f.dst = s
	}
	return nil
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string, escaping invalid UTF-8 bytes
// as \udcXX (see AppendJSON).
func appendString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				buf = append(buf, '\\', c)
			case c == '\n':
				buf = append(buf, '\\', 'n')
			case c == '\t':
				buf = append(buf, '\\', 't')
			case c == '\r':
				buf = append(buf, '\\', 'r')
			case c < 0x20 || c == 0x7f:
				buf = append(buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			default:
				buf = append(buf, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf = append(buf, '\\', 'u', 'd', 'c', hexDigits[c>>4], hexDigits[c&0xf])
			i++
			continue
		}
		buf = append(buf, s[i:i+size]...)
		i += size
	}
	return append(buf, '"')
}

var errBadString = errors.New("malformed JSON string")

// unquoteBytes decodes a JSON string literal, turning lone surrogates
// \udc80-\udcff back into the bytes they stand for.
func unquoteBytes(q []byte) (string, error) {
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		return "", errBadString
	}
	q = q[1 : len(q)-1]
	out := make([]byte, 0, len(q))
	for i := 0; i < len(q); {
		c := q[i]
		if c != '\\' {
			out = append(out, c)
			i++
			continue
		}
		if i+1 >= len(q) {
			return "", errBadString
		}
		switch q[i+1] {
		case '"', '\\', '/':
			out = append(out, q[i+1])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(q[i+2:])
			if !ok {
				return "", errBadString
			}
			i += 6
			switch {
			case r >= 0xdc80 && r <= 0xdcff:
				out = append(out, byte(r-0xdc00))
			case utf16.IsSurrogate(r):
				r2, ok2 := rune(0), false
				if i+1 < len(q) && q[i] == '\\' && q[i+1] == 'u' {
					r2, ok2 = hex4(q[i+2:])
				}
				if dec := utf16.DecodeRune(r, r2); ok2 && dec != utf8.RuneError {
					out = utf8.AppendRune(out, dec)
					i += 6
				} else {
					out = utf8.AppendRune(out, utf8.RuneError)
				}
			default:
				out = utf8.AppendRune(out, r)
			}
			continue
		default:
			return "", errBadString
		}
		i += 2
	}
	return string(out), nil
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	v, err := strconv.ParseUint(string(b[:4]), 16, 16)
	return rune(v), err == nil
}
