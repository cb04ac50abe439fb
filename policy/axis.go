package policy

import "fmt"

// Axis is one of the three permission kinds of a policy.
type Axis int

// The three axes, in the order a policy file lists them.
const (
	Read Axis = iota
	Write
	Execute
)

// Axes lists every axis in canonical order.
var Axes = [...]Axis{Read, Write, Execute}

var axisNames = [...]string{Read: "read", Write: "write", Execute: "execute"}

// String returns the axis' JSON key: "read", "write" or "execute".
func (a Axis) String() string {
	if a < 0 || int(a) >= len(axisNames) {
		return fmt.Sprintf("Axis(%d)", int(a))
	}
	return axisNames[a]
}

// ParseAxis returns the axis named s.
func ParseAxis(s string) (Axis, error) {
	for _, a := range Axes {
		if a.String() == s {
			return a, nil
		}
	}
	return 0, fmt.Errorf("unknown axis %q (want read, write or execute)", s)
}
