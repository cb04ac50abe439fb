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

	mu     sync.Mutex
	forced syscall.Signal // a forwarded signal that was carried out by KillTree
}

// NewChildTree wraps c, started with opts.
func NewChildTree(c *sandbox.Child, opts sandbox.LaunchOptions) *ChildTree {
	return &ChildTree{Child: c, NSInit: opts.OwnPIDNamespace}
}

// Signal forwards sig to the tree (see Forward).
func (t *ChildTree) Signal(sig syscall.Signal) error {
	killed, err := Forward(t.Pid(), sig, t.NSInit, t.KillTree)
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
// killed the root.
func (t *ChildTree) Wait() (int, error) {
	code, err := t.Child.Wait()
	t.mu.Lock()
	defer t.mu.Unlock()
	if err == nil && t.forced != 0 && code == 128+int(syscall.SIGKILL) {
		code = 128 + int(t.forced)
	}
	return code, err
}
