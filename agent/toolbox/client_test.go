package toolbox

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// flood is an output of n bytes without a newline; it counts what was
// read of it and whether it was closed.
type flood struct {
	left, read int64
	closed     bool
}

func (f *flood) Read(p []byte) (int, error) {
	if f.left == 0 {
		return 0, io.EOF
	}
	n := min(int64(len(p)), f.left)
	for i := range p[:n] {
		p[i] = 'x'
	}
	f.left -= n
	f.read += n
	return int(n), nil
}

func (f *flood) Close() error { f.closed = true; return nil }

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
func (discard) Close() error                { return nil }

// TestEscapeDaemonToolboxResultLineBounded: 600 MiB without a newline on the
// toolbox's output: the client stops reading after MaxResultBytes (and
// closes it), the call fails with ErrBroken naming the bound, and the
// client allocated a bounded amount on the way (the growth of one
// line buffer to the bound, far below the flood).
func TestEscapeDaemonToolboxResultLineBounded(t *testing.T) {
	f := &flood{left: 600 << 20}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	c := NewClient(discard{}, f, nil)
	_, err := c.Call(context.Background(), Request{Op: OpPing})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrBroken) || !errors.Is(err, ErrGone) || !strings.Contains(err.Error(), "over 8388608 bytes") {
		t.Fatalf("call: %v", err)
	}
	if f.read > MaxResultBytes+128<<10 || !f.closed {
		t.Errorf("read %d bytes of the flood (bound %d), closed %v", f.read, MaxResultBytes, f.closed)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8*MaxResultBytes {
		t.Errorf("allocated %d bytes reading the flood", alloc)
	}
}

// TestEscapeDaemonToolboxForgedResultsDropped: a toolbox answering each request with a
// forged result (a later ID), one without an ID, a repeat of the previous
// answer and then the real one: each call gets its own result, the
// others are dropped and logged.
func TestEscapeDaemonToolboxForgedResultsDropped(t *testing.T) {
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	go func() {
		defer outW.Close()
		sc := bufio.NewScanner(inR)
		var prev []byte
		for sc.Scan() {
			var req Request
			if json.Unmarshal(sc.Bytes(), &req) != nil {
				return
			}
			forged, _ := json.Marshal(Result{ID: req.ID + 1, Output: "forged", StartNS: 1, EndNS: 2})
			none, _ := json.Marshal(Result{Output: "no id"})
			real, _ := json.Marshal(Result{ID: req.ID, Output: "real " + req.Command})
			lines := [][]byte{forged, none}
			if prev != nil {
				lines = append(lines, prev)
			}
			for _, l := range append(lines, real) {
				outW.Write(append(l, '\n'))
			}
			prev = real
		}
	}()
	core, logs := observer.New(zap.WarnLevel)
	c := NewClient(inW, outR, zap.New(core))
	defer c.Close()
	for _, cmd := range []string{"a", "b", "c"} {
		res, err := c.Call(context.Background(), Request{Op: OpShell, Command: cmd})
		if err != nil || res.Output != "real "+cmd {
			t.Fatalf("call %s: %+v %v", cmd, res, err)
		}
	}
	// 3 forged + 3 without an ID + 2 repeats; the last call's forged line
	// is waiting when it returns at the latest.
	if n := logs.FilterMessage("toolbox result dropped").Len(); n < 7 {
		t.Errorf("%d results dropped and logged, want at least 7", n)
	}
}

// TestServeKeepsResultLinesBounded: an error quoting a huge path of
// control bytes (12 MiB once escaped, twice) is answered with an error
// saying so: the toolbox never writes a line the client would refuse.
func TestServeKeepsResultLinesBounded(t *testing.T) {
	c := serve(t, Options{Dir: t.TempDir()})
	res, err := c.Call(context.Background(), Request{Op: OpReadFile, Path: strings.Repeat("\x01", 1<<20)})
	if err != nil || !res.Truncated || !strings.Contains(res.Error, "over the protocol's 8388608") {
		t.Fatalf("%.200v %v", res, err)
	}
	if r := call(t, c, Request{Op: OpShell, Command: "echo next"}); r.Output != "next\n" {
		t.Errorf("next call: %q", r.Output)
	}
}
