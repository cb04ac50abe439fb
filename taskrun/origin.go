package taskrun

import (
	"fmt"
	"os"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/netproxy/netpolicy"
)

// origins places the processes that connect through a run's proxy: a
// compose service's by its pid namespace (each service's, held open
// from its start so that its number is not reused while the run lasts),
// any other process of the run's namespace by the phase it connects in
// (the agent's containers in the agent phase, the verifiers' in the
// verifiers'), and a process not found (pid 0), one of the host's pid
// namespace or one connecting during set-up outside any service as
// unknown.
type origins struct {
	mu       sync.Mutex
	services map[uint64]string
	held     []*os.File
}

// addService notes the pid namespace of service name, whose container's
// init is pid.
func (o *origins) addService(name string, pid int) error {
	f, err := os.Open(fmt.Sprintf("/proc/%d/ns/pid", pid))
	if err != nil {
		return fmt.Errorf("service %s: pid namespace: %w", name, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		f.Close()
		return fmt.Errorf("service %s: pid namespace: %w", name, err)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.services == nil {
		o.services = map[uint64]string{}
	}
	o.services[st.Ino], o.held = name, append(o.held, f)
	return nil
}

// of is the origin of process pid connecting in phase ph
// (netproxy.Config.Origin).
func (o *origins) of(pid int, ph netpolicy.Phase) string {
	if pid <= 0 {
		return netpolicy.OriginUnknown
	}
	ino, ok := pidNS(fmt.Sprintf("/proc/%d/ns/pid", pid))
	if !ok {
		return netpolicy.OriginUnknown
	}
	o.mu.Lock()
	name, ok := o.services[ino]
	o.mu.Unlock()
	if ok {
		return netpolicy.ServiceOrigin(name)
	}
	if self, ok := pidNS("/proc/self/ns/pid"); !ok || self == ino {
		return netpolicy.OriginUnknown // not in a container of the run
	}
	return phaseOrigin(ph)
}

// phaseOrigin is the origin of a process of the run's containers that is
// no compose service's, by the phase: the agent's in the agent phase,
// the verifiers' in theirs, unknown in set-up (no such container runs
// then). It is pure.
func phaseOrigin(ph netpolicy.Phase) string {
	switch ph {
	case netpolicy.PhaseAgent:
		return netpolicy.OriginAgent
	case netpolicy.PhaseVerifier:
		return netpolicy.OriginVerifier
	}
	return netpolicy.OriginUnknown
}

// pidNS is the inode of the pid namespace link path.
func pidNS(path string) (uint64, bool) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return 0, false
	}
	return st.Ino, true
}

// close releases the services' namespaces.
func (o *origins) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, f := range o.held {
		f.Close()
	}
	o.held, o.services = nil, nil
}
