package taskrun

import "github.com/authbench/authbench/policy"

func axisOf(s string) policy.Axis {
	a, _ := policy.ParseAxis(s)
	return a
}
