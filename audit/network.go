package audit

// Network denials: a connection attempt the run's egress proxy refused
// (taskrun lists the agent's; netproxy records every attempt).
const (
	// OpConnect is the op of a network denial.
	OpConnect = "connect"
	// AxisNetwork is its axis; its Path is the destination "host:port".
	AxisNetwork = "network"
	// ErrnoRefused is its errno: the proxy refused the connection.
	ErrnoRefused = "ECONNREFUSED"
)

// NetworkDenial is a refused connection attempt to target ("host:port")
// as a denial.
func NetworkDenial(target string) Denial {
	return Denial{Op: OpConnect, Axis: AxisNetwork, Path: target, Errno: ErrnoRefused, Count: 1}
}

// IsNetworkDenial reports whether d is a refused connection attempt.
func IsNetworkDenial(d Denial) bool { return d.Op == OpConnect && d.Axis == AxisNetwork }
