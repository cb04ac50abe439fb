package sandbox

import (
	"slices"
	"sync"

	specs "github.com/opencontainers/runtime-spec/specs-go"
	"golang.org/x/sys/unix"
)

// GrantingProfile is the profile of a model agent's tool process that
// applies run-time grants (Ruleset): ContainerProfile with openat2
// answered ENOSYS instead of handed to the openat2 agent. That agent
// opens under sandbox-init's ruleset, which for this process is the
// decider's ceiling, wider than the calls' rulesets: serving openat2 from
// it would bypass them. Programs fall back to openat (glibc's opens never
// use openat2), which Landlock judges on the calling thread.
func GrantingProfile() *Profile {
	p := withoutOpenat2Agent(ContainerProfile())
	p.Source = "granting"
	return p
}

// withoutOpenat2Agent is a copy of p whose rules that hand a syscall to
// the openat2 agent (SCMP_ACT_NOTIFY) answer ENOSYS instead.
func withoutOpenat2Agent(p *Profile) *Profile {
	q := *p
	q.Syscalls = slices.Clone(p.Syscalls)
	enosys := uint(unix.ENOSYS)
	for i := range q.Syscalls {
		if q.Syscalls[i].Action == specs.ActNotify {
			q.Syscalls[i].Action, q.Syscalls[i].ErrnoRet = specs.ActErrno, &enosys
		}
	}
	return &q
}

var grantingFilter = sync.OnceValues(func() (*Filter, error) {
	return CompileProfile(GrantingProfile(), CompileOptions{})
})

// GrantingFilter is GrantingProfile compiled for this machine (once per
// process; each caller gets its own copy).
func GrantingFilter() (*Filter, error) {
	f, err := grantingFilter()
	if err != nil {
		return nil, err
	}
	c := *f
	c.Program, c.Skipped = slices.Clone(f.Program), slices.Clone(f.Skipped)
	return &c, nil
}
