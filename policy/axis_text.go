package policy

import "fmt"

// ParseAnyAxis returns the axis named s, the network axis included.
func ParseAnyAxis(s string) (Axis, error) {
	for _, a := range AllAxes {
		if a.String() == s {
			return a, nil
		}
	}
	return 0, fmt.Errorf("unknown axis %q (want read, write, execute or network)", s)
}

// MarshalText writes the axis by its name, so that an Axis field is the
// string a record has always carried ("read", ..., "network").
func (a Axis) MarshalText() ([]byte, error) {
	if a < 0 || int(a) >= len(axisNames) {
		return nil, fmt.Errorf("axis %d out of range", int(a))
	}
	return []byte(a.String()), nil
}

// UnmarshalText reads what MarshalText writes.
func (a *Axis) UnmarshalText(text []byte) error {
	x, err := ParseAnyAxis(string(text))
	if err != nil {
		return err
	}
	*a = x
	return nil
}

// Axis returns the score of axis a: for a file axis always (ok true),
// for the network axis when the spec scores it.
func (s *Score) Axis(a Axis) (score AxisScore, ok bool) {
	switch {
	case a == Network && s.Network != nil:
		return *s.Network, true
	case a >= 0 && int(a) < len(s.Axes):
		return s.Axes[a], true
	}
	return AxisScore{}, false
}
