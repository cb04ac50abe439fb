package policy

import "fmt"

// Axis is one of the permission kinds of a policy: the three file axes,
// then the network axis.
type Axis int

// The axes, in the order a policy file lists them.
const (
	Read Axis = iota
	Write
	Execute
	// Network is the fourth axis: the host:port destinations a policy
	// allows (Policy.Network, a list of its own, not of Permissions). It
	// is scored only for a spec that declares it (NetworkSpec.Scored).
	Network
)

// Axes lists the three file axes in canonical order: the axes of
// Permissions, which it is indexed by.
var Axes = [...]Axis{Read, Write, Execute}

// AllAxes lists every axis, the file axes then Network: the axes of a
// score (Score.Axis) and of the report's columns and charts.
var AllAxes = [...]Axis{Read, Write, Execute, Network}

var axisNames = [...]string{Read: "read", Write: "write", Execute: "execute", Network: "network"}

// String returns the axis' JSON key: "read", "write", "execute" or
// "network".
func (a Axis) String() string {
	if a < 0 || int(a) >= len(axisNames) {
		return fmt.Sprintf("Axis(%d)", int(a))
	}
	return axisNames[a]
}

// ParseAxis returns the file axis named s (read, write or execute; the
// network axis is no file axis: ParseAnyAxis).
func ParseAxis(s string) (Axis, error) {
	for _, a := range Axes {
		if a.String() == s {
			return a, nil
		}
	}
	return 0, fmt.Errorf("unknown axis %q (want read, write or execute)", s)
}
