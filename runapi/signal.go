package runapi

import (
	"fmt"
	"syscall"
)

// ForwardableSignals are the signals a caller may send to its run's
// tree (SignalRequest), by name.
var ForwardableSignals = map[string]syscall.Signal{
	"SIGINT": syscall.SIGINT, "SIGTERM": syscall.SIGTERM, "SIGHUP": syscall.SIGHUP,
	"SIGQUIT": syscall.SIGQUIT, "SIGUSR1": syscall.SIGUSR1, "SIGUSR2": syscall.SIGUSR2,
}

// SignalName is the API's name of sig (for SignalRequest).
func SignalName(sig syscall.Signal) string {
	for name, s := range ForwardableSignals {
		if s == sig {
			return name
		}
	}
	return fmt.Sprintf("SIG%d", int(sig))
}
