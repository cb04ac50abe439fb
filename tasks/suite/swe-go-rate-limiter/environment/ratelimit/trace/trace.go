// Package trace reads request traces: one request per line, "MILLIS CLIENT [COST]".
// Blank lines and lines starting with # are skipped; COST defaults to 1.
package trace

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Request is one line of a trace.
type Request struct {
	Millis int64
	Client string
	Cost   int
}

// Read parses a trace.
func Read(r io.Reader) ([]Request, error) {
	var out []Request
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		f := strings.Fields(text)
		if len(f) < 2 || len(f) > 3 {
			return nil, fmt.Errorf("line %d: want MILLIS CLIENT [COST], got %q", line, text)
		}
		ms, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", line, err)
		}
		req := Request{Millis: ms, Client: f[1], Cost: 1}
		if len(f) == 3 {
			if req.Cost, err = strconv.Atoi(f[2]); err != nil || req.Cost < 1 {
				return nil, fmt.Errorf("line %d: bad cost %q", line, f[2])
			}
		}
		out = append(out, req)
	}
	return out, sc.Err()
}
