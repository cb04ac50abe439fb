package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/authbench/authbench/policy"
)

// Gate is the parent's side of the sandbox-init protocol: two pipes that
// the child sees as descriptors 3 (the spec; its end is the release) and
// 4 (an error before exec, else EOF when the exec closes it). Start uses
// a Gate for a child it forks itself; a caller whose child is started by
// someone else (runc run --preserve-fds 2) passes ChildFiles to it.
type Gate struct {
	spec   Launch
	specR  *os.File // child's end of the spec pipe
	specW  *os.File
	errR   *os.File
	errW   *os.File // child's end of the error pipe
	closed bool
	// status is the status pipe of a spec with ReportExit (nil without).
	status *statusPipe
}

// NewGate makes the pipes of a gate for spec.
func NewGate(spec Launch) (*Gate, error) {
	specR, specW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("sandbox gate: spec pipe: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		specR.Close()
		specW.Close()
		return nil, fmt.Errorf("sandbox gate: error pipe: %w", err)
	}
	g := &Gate{spec: spec, specR: specR, specW: specW, errR: errR, errW: errW}
	if spec.ReportExit {
		if g.status, err = newStatusPipe(); err != nil {
			g.Close()
			g.Started()
			return nil, err
		}
	}
	return g, nil
}

// ChildFiles are the child's ends, to become its descriptors 3 and 4
// (and 5, the status pipe, for a spec with ReportExit).
func (g *Gate) ChildFiles() []*os.File {
	if g.status != nil {
		return []*os.File{g.specR, g.errW, g.status.w}
	}
	return []*os.File{g.specR, g.errW}
}

// Started closes this process's copies of the child's ends; call it once
// the child has them.
func (g *Gate) Started() {
	g.specR.Close()
	g.errW.Close()
	if g.status != nil {
		g.status.w.Close()
	}
}

// CommandEnded delivers the command's status (as a shell reports it)
// once it ended, for a spec with ReportExit; it is closed without a
// value when the child ended without saying (nil without ReportExit).
func (g *Gate) CommandEnded() <-chan int {
	if g.status == nil {
		return nil
	}
	g.status.read()
	return g.status.ended
}

// Release opens the gate: the child reads its spec, restricts itself and
// execs. Release returns once the exec happened, or with the child's
// error (an *InitError) if it could not get there.
func (g *Gate) Release() error {
	werr := json.NewEncoder(g.specW).Encode(g.spec.wire())
	g.specW.Close()
	msg, rerr := io.ReadAll(g.errR)
	g.errR.Close()
	g.closed = true
	if len(msg) > 0 {
		return decodeInitError(msg)
	}
	if werr != nil {
		return fmt.Errorf("send spec to sandbox-init: %w", werr)
	}
	if rerr != nil {
		return fmt.Errorf("read sandbox-init status: %w", rerr)
	}
	return nil
}

// wire is s as it is sent through the gate: its plan keeps what
// sandbox-init enforces (each rule's path, kind, rights and whether it
// is placed at run time) and drops what only a reader of the plan needs
// (the patterns each rule came from, widenings, warnings), which
// sandbox-init would decode for nothing.
func (s Launch) wire() Launch {
	if s.Plan == nil {
		return s
	}
	p := policy.Plan{Root: s.Plan.Root, Baseline: s.Plan.Baseline, Semantics: s.Plan.Semantics,
		Rules: make([]policy.Rule, len(s.Plan.Rules))}
	for i, r := range s.Plan.Rules {
		r.From = nil
		p.Rules[i] = r
	}
	s.Plan = &p
	return s
}

// Close abandons the gate (the child, if any, reads EOF and fails).
func (g *Gate) Close() {
	if g.closed {
		return
	}
	g.closed = true
	g.specW.Close()
	g.errR.Close()
}

// CloseStatus closes the status pipe's read end (a ReportExit gate whose
// tree is gone).
func (g *Gate) CloseStatus() {
	if g.status != nil {
		g.status.r.Close()
	}
}

// ReleaseProcess is Release for a child whose descriptors another process
// also holds (runc run keeps its copies of what it passes with
// --preserve-fds), so that the exec cannot be seen as EOF: it waits
// instead until process pid runs another program than before, or exits,
// or reports an error.
func (g *Gate) ReleaseProcess(pid int) error {
	exeLink := fmt.Sprintf("/proc/%d/exe", pid)
	before, err := os.Readlink(exeLink)
	if err != nil {
		g.Close()
		return fmt.Errorf("sandbox gate: process %d: %w", pid, err)
	}
	werr := json.NewEncoder(g.specW).Encode(g.spec.wire())
	g.specW.Close()
	defer func() { g.errR.Close(); g.closed = true }()
	if werr != nil {
		return fmt.Errorf("send spec to sandbox-init: %w", werr)
	}
	var started <-chan struct{}
	if g.status != nil {
		started = g.status.read()
	}
	var msg []byte
	for {
		select {
		case <-started:
			return nil // a reaper: its program never changes
		default:
		}
		got, closed := g.readFor(time.Millisecond)
		msg = append(msg, got...)
		switch {
		case len(got) > 0:
			continue // more may follow
		case len(msg) > 0 && (closed || processGone(pid)):
			return decodeInitError(msg)
		case len(msg) > 0:
			continue // the child is still writing its error
		}
		now, err := os.Readlink(exeLink)
		switch {
		case err != nil:
			// Gone: either the command already ran and ended, or
			// sandbox-init failed, and then it wrote why just before.
			// (Killed before it could exec, it leaves its exit status
			// to tell.)
			var last []byte
			for {
				got, closed := g.readFor(50 * time.Millisecond)
				last = append(last, got...)
				if len(got) == 0 || closed {
					break
				}
			}
			if len(last) > 0 {
				return decodeInitError(last)
			}
			return nil
		case now != before:
			return nil
		}
	}
}

// readFor reads what the error pipe holds within d; closed reports EOF.
func (g *Gate) readFor(d time.Duration) (data []byte, closed bool) {
	buf := make([]byte, 4096)
	_ = g.errR.SetReadDeadline(time.Now().Add(d))
	n, err := g.errR.Read(buf)
	return buf[:n], err != nil && !errors.Is(err, os.ErrDeadlineExceeded)
}

// processGone reports whether pid has exited (or is a zombie).
func processGone(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(data)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] == 'Z'
	}
	return false
}
