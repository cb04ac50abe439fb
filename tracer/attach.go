package tracer

import (
	"errors"
	"fmt"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
	"go.uber.org/zap"
)

// The programs are attached only while at least one session is open: an
// attached sys_exit hook costs every syscall of the machine, traced or
// not, so an idle Tracer (a daemon between runs) costs nothing. Attaching
// the four BTF tracepoints takes well under a millisecond.

// acquire attaches the programs if no session holds them yet, and counts
// the caller as a holder.
func (t *Tracer) acquire() error {
	t.attachMu.Lock()
	defer t.attachMu.Unlock()
	if t.holders == 0 {
		if err := t.attach(); err != nil {
			return err
		}
	}
	t.holders++
	return nil
}

// release drops a holder and detaches the programs after the last one.
func (t *Tracer) release() {
	t.attachMu.Lock()
	defer t.attachMu.Unlock()
	if t.holders == 0 {
		return
	}
	t.holders--
	if t.holders == 0 {
		if err := t.detach(); err != nil {
			t.log.Warn("detach tracer programs", zap.Error(err))
		}
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
	} {
		l, err := link.AttachTracing(link.TracingOptions{Program: p.prog})
		if err != nil {
			_ = t.detach()
			return fmt.Errorf("attach tracer to tracepoint %s: %w", p.tracepoint, permHint(err))
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
