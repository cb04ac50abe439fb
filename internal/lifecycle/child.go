package lifecycle

import (
	"sync"
	"syscall"

	"github.com/authbench/authbench/sandbox"
)

// ChildTree is the Tree of a sandbox-init child this process started.
type ChildTree struct {
	*sandbox.Child
	// NSInit reports that the child is the init of its own PID namespace.
	NSInit bool
	// proc is the root's pidfd, taken while the child is unreaped (or
	// why it could not be).
	proc    *Process
	procErr error
	mu      sync.Mutex
	forced  syscall.Signal // a forwarded signal that was carried out by KillTree
}

// NewChildTree wraps c, started with opts (and not yet waited for): it
// takes the handle on c's process that Signal uses.
func NewChildTree(c *sandbox.Child, opts sandbox.LaunchOptions) *ChildTree {
	p, err := OpenProcess(c.Pid())
	return &ChildTree{Child: c, NSInit: opts.OwnPIDNamespace, proc: p, procErr: err}
}

// Signal forwards sig to the tree (see Forward); an *ExitedError once
// the root has ended.
func (t *ChildTree) Signal(sig syscall.Signal) error {
	if t.procErr != nil {
		return t.procErr
	}
	killed, err := Forward(t.proc, sig, t.NSInit, t.KillTree)
	if killed {
		t.mu.Lock()
		if t.forced == 0 {
			t.forced = sig
		}
		t.mu.Unlock()
	}
	return err
}

// Wait is sandbox.Child's Wait, except that a tree ended by a forwarded
// signal (see Signal) reports that signal, as if its default action had
// killed the root. The handle on the root is closed.
func (t *ChildTree) Wait() (int, error) {
	code, err := t.Child.Wait()
	_ = t.proc.Close()
	t.mu.Lock()
	defer t.mu.Unlock()
	if err == nil && t.forced != 0 && code == 128+int(syscall.SIGKILL) {
		code = 128 + int(t.forced)
	}
	return code, err
}
