package tracer

import (
	"errors"
	"fmt"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
	"go.uber.org/zap"
)

// The programs are attached only while sessions are open: an attached
// sys_exit hook costs every syscall of the machine, traced or not, so an
// idle Tracer (a daemon between runs) costs nothing. Attaching takes well
// under a millisecond, but the kernel finishes a detach asynchronously,
// after an RCU grace period, and an attach that comes within ~100 ms of a
// detach waits for it (5-30 ms measured). So the last session's close
// detaches only after IdleDetach without a new session: back-to-back runs
// keep the programs attached, an idle tracer is detached shortly after.

// DefaultIdleDetach is the default of Options.IdleDetach.
const DefaultIdleDetach = 250 * time.Millisecond

// acquire attaches the programs if they are not attached, and counts the
// caller as a holder.
func (t *Tracer) acquire() error {
	t.attachMu.Lock()
	defer t.attachMu.Unlock()
	t.stopIdleTimer()
	if t.links == nil {
		if err := t.attach(); err != nil {
			return err
		}
	}
	t.holders++
	return nil
}

// release drops a holder; after the last one the programs are detached
// once the tracer has been idle for IdleDetach.
func (t *Tracer) release() {
	t.attachMu.Lock()
	defer t.attachMu.Unlock()
	if t.holders == 0 {
		return
	}
	t.holders--
	if t.holders > 0 {
		return
	}
	if t.idleDetach <= 0 {
		t.detachLogged()
		return
	}
	var timer *time.Timer
	timer = time.AfterFunc(t.idleDetach, func() {
		t.attachMu.Lock()
		defer t.attachMu.Unlock()
		if t.idleTimer == timer && t.holders == 0 {
			t.idleTimer = nil
			t.detachLogged()
		}
	})
	t.idleTimer = timer
}

// stopIdleTimer cancels a pending idle detach (attachMu held).
func (t *Tracer) stopIdleTimer() {
	if t.idleTimer != nil {
		t.idleTimer.Stop()
		t.idleTimer = nil
	}
}

func (t *Tracer) detachLogged() {
	if err := t.detach(); err != nil {
		t.log.Warn("detach tracer programs", zap.Error(err))
	}
}

// attach attaches the process-lifecycle programs before the syscall hook,
// so that a tree's forks are followed from its first traced syscall on.
func (t *Tracer) attach() error {
	for _, p := range []struct {
		tracepoint string
		prog       *ebpf.Program
	}{
		{"sched_process_fork", t.objs.AbFork},
		{"sched_process_exec", t.objs.AbExec},
		{"sched_process_exit", t.objs.AbExit},
		{"sys_exit", t.objs.AbSysExit},
		{"io_uring_submit_req", t.objs.AbURing},
	} {
		l, err := link.AttachTracing(link.TracingOptions{Program: p.prog})
		if err != nil {
			_ = t.detach()
			return fmt.Errorf("attach tracer to tracepoint %s: %w", p.tracepoint, permHint(err))
		}
		t.links = append(t.links, l)
	}
	for _, p := range t.objs.prepare {
		l, err := link.AttachTracing(link.TracingOptions{Program: p})
		if err != nil {
			_ = t.detach()
			return fmt.Errorf("attach tracer to tracepoint %s: %w", prepareTracepoint, permHint(err))
		}
		t.links = append(t.links, l)
	}
	return nil
}

// detach closes the links.
func (t *Tracer) detach() error {
	var errs []error
	for _, l := range t.links {
		errs = append(errs, l.Close())
	}
	t.links = nil
	return errors.Join(errs...)
}
