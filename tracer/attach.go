package tracer

import (
	"errors"
	"fmt"
	"os"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
	"go.uber.org/zap"
	"golang.org/x/sys/unix"
)

// tracedSyscalls are the syscalls/sys_{enter,exit}_<name> tracepoints
// used in tracepoint mode, with their argument counts (an entry program
// may not read past its event's arguments); bpf/syscalls.h maps their
// numbers to events.
var tracedSyscalls = []struct {
	name string
	args int
}{
	{"open", 3}, {"openat", 4}, {"openat2", 4}, {"creat", 2}, {"execve", 3}, {"execveat", 5},
	{"mkdir", 2}, {"mkdirat", 3}, {"unlink", 1}, {"unlinkat", 3}, {"rmdir", 1}, {"rename", 2},
	{"renameat", 4}, {"renameat2", 5}, {"link", 2}, {"linkat", 5}, {"symlink", 2}, {"symlinkat", 3},
	{"truncate", 2}, {"ftruncate", 2}, {"chdir", 1}, {"fchdir", 1},
}

const tracefsDir = "/sys/kernel/tracing"

// attach attaches the process-lifecycle programs and the syscall hooks:
// raw sys_enter/sys_exit tracepoints, or per-syscall tracepoints when
// asked for (falling back to raw ones when tracefs cannot be used). It
// returns the mode used.
func (t *Tracer) attach(syscallTracepoints bool) (string, error) {
	for _, p := range []struct {
		name string
		prog *ebpf.Program
	}{
		{"sched_process_fork", t.objs.AbFork},
		{"sched_process_exec", t.objs.AbExec},
		{"sched_process_exit", t.objs.AbExit},
	} {
		if err := t.attachRaw(p.name, p.prog); err != nil {
			return "", err
		}
	}
	if syscallTracepoints {
		err := t.attachSyscallTracepoints()
		if err == nil {
			return ModeTracepoints, nil
		}
		if errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES) {
			return "", fmt.Errorf("load tracer: %w", permHint(err))
		}
		t.log.Warn("per-syscall tracepoints unavailable; using raw sys_enter/sys_exit", zap.Error(err))
		t.detach(3)
	}
	for _, p := range []struct {
		name string
		prog *ebpf.Program
	}{{"sys_enter", t.objs.AbSysEnter}, {"sys_exit", t.objs.AbSysExit}} {
		if err := t.attachRaw(p.name, p.prog); err != nil {
			return "", err
		}
	}
	return ModeRaw, nil
}

func (t *Tracer) attachRaw(name string, prog *ebpf.Program) error {
	l, err := link.AttachRawTracepoint(link.RawTracepointOptions{Name: name, Program: prog})
	if err != nil {
		return fmt.Errorf("load tracer: attach raw tracepoint %s: %w", name, permHint(err))
	}
	t.links = append(t.links, l)
	return nil
}

func (t *Tracer) attachSyscallTracepoints() error {
	if err := ensureTracefs(t.log); err != nil {
		return err
	}
	for _, sc := range tracedSyscalls {
		for _, tp := range []struct {
			event string
			prog  *ebpf.Program
		}{{"sys_enter_" + sc.name, t.objs.AbTpEnter[sc.args]}, {"sys_exit_" + sc.name, t.objs.AbTpExit}} {
			l, err := link.Tracepoint("syscalls", tp.event, tp.prog, nil)
			if err != nil {
				return fmt.Errorf("attach tracepoint syscalls/%s: %w", tp.event, err)
			}
			t.links = append(t.links, l)
		}
	}
	return nil
}

// detach closes the links after the first keep.
func (t *Tracer) detach(keep int) {
	for _, l := range t.links[keep:] {
		l.Close()
	}
	t.links = t.links[:keep]
}

// ensureTracefs makes the syscall tracepoints visible, mounting tracefs
// at its usual place when nothing is mounted there.
func ensureTracefs(log *zap.Logger) error {
	for _, dir := range []string{tracefsDir, "/sys/kernel/debug/tracing"} {
		if _, err := os.Stat(dir + "/events/syscalls"); err == nil {
			return nil
		}
	}
	if err := unix.Mount("tracefs", tracefsDir, "tracefs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mount tracefs on %s: %w", tracefsDir, err)
	}
	log.Info("mounted tracefs", zap.String("dir", tracefsDir))
	if _, err := os.Stat(tracefsDir + "/events/syscalls"); err != nil {
		return fmt.Errorf("no syscall tracepoints in tracefs: %w", err)
	}
	return nil
}
