package audit

import "github.com/authbench/authbench/tracer/trace"

// Network denials: a connection attempt the run's egress proxy refused
// (taskrun lists the agent's; netproxy records every attempt).
const (
	// OpConnect is the op of a network denial.
	OpConnect = "connect"
	// ErrnoRefused is its errno: the proxy refused the connection.
	ErrnoRefused = "ECONNREFUSED"
)

// AxisNetwork is a network denial's axis; its Path is the destination
// "host:port".
const AxisNetwork trace.Axis = "network"

// NetworkDenial is a refused connection attempt to target ("host:port")
// as a denial.
func NetworkDenial(target string) Denial {
	return Denial{Op: OpConnect, Axis: AxisNetwork, Path: target, Errno: ErrnoRefused, Count: 1}
}

// IsNetworkDenial reports whether d is a refused connection attempt.
func IsNetworkDenial(d Denial) bool { return d.Op == OpConnect && d.Axis == AxisNetwork }
