package sandbox

import (
	"slices"
	"sync"

	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// SidecarProfile is the profile of a container that runs no
// sandbox-init (a task's compose service): ContainerProfile, with
// openat2 allowed instead of handed to the openat2 agent. That agent
// exists only beside sandbox-init, to judge openat2 under the tree's
// Landlock rules; a service has no rules for openat2 to bypass (Docker
// allows it). Every other refusal stays: mount, unshare and clone of
// namespaces, keyctl, bpf, ptrace, ...
func SidecarProfile() *Profile {
	p := ContainerProfile()
	for i := range p.Syscalls {
		if p.Syscalls[i].Action == specs.ActNotify {
			p.Syscalls[i].Action = specs.ActAllow
		}
	}
	p.Source = "sidecar"
	return p
}

var sidecarFilter = sync.OnceValues(func() (*Filter, error) {
	return CompileProfile(SidecarProfile(), CompileOptions{})
})

// SidecarFilter is SidecarProfile compiled for this machine by the
// compiler the agent's filter comes from (once per process; each caller
// gets its own copy). It is not handed to runc: libseccomp lets a rule
// without conditions override the same syscall's conditional rules, so
// the profile's "clone without namespace flags, else EPERM" would refuse
// every clone, and its conditional refusals beside an unconditional allow
// (TIOCSTI, truncating read-only opens) would vanish.
func SidecarFilter() (*Filter, error) {
	f, err := sidecarFilter()
	if err != nil {
		return nil, err
	}
	c := *f
	c.Program, c.Skipped = slices.Clone(f.Program), slices.Clone(f.Skipped)
	return &c, nil
}
