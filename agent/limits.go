package agent

import (
	"encoding/json"
	"unicode/utf8"
)

// jsonLen is the most bytes s takes as a JSON string (quotes included)
// in a request body or a trajectory: encoding/json escapes control
// characters, <, >, & (\u00XX), invalid UTF-8 (\ufffd) and U+2028/9.
func jsonLen(s string) int64 {
	n := int64(2)
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			switch {
			case b == '"' || b == '\\':
				n += 2
			case b < 0x20 || b == '<' || b == '>' || b == '&':
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1, r == '\u2028', r == '\u2029':
			n += 6
		default:
			n += int64(size)
		}
		i += size
	}
	return n
}

// rawLen is the most bytes a JSON value takes once re-encoded (its
// strings' <, > and & escaped).
func rawLen(raw json.RawMessage) int64 {
	n := int64(len(raw))
	for _, b := range raw {
		if b == '<' || b == '>' || b == '&' {
			n += 5
		}
	}
	return n
}

// extraLen is the size of an observation's extra in the trajectory.
func extraLen(extra map[string]any) int64 {
	if extra == nil {
		return 0
	}
	data, err := json.Marshal(extra)
	if err != nil {
		return 0
	}
	return int64(len(data))
}
