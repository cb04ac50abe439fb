package generate

import (
	"github.com/authbench/authbench/generate/genname"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
)

// AllowAll returns the allow-all policy.
func AllowAll() *policy.Policy {
	pol, err := policy.ParsePolicy([]byte(genname.AllowAllDocument), genname.KindAllowAll)
	if err != nil {
		panic(err) // a constant document
	}
	return pol
}

// SpecPolicy is the spec baseline: the spec's required_permissions.
func SpecPolicy(spec *policy.Spec) *policy.Policy {
	pol := runapi.SpecPolicy(spec)
	pol.Source = genname.KindSpec
	return pol
}
