package sandbox

import (
	"slices"
	"sync"

	specs "github.com/opencontainers/runtime-spec/specs-go"
	"golang.org/x/sys/unix"
)

// setIDModeArg is, per syscall whose set-ID refusal ContainerProfile
// drops, the index of its mode argument. mknod and mknodat are not here:
// nothing a task does needs a set-ID node, so they keep the refusal.
var setIDModeArg = map[string]uint{
	"chmod": 1, "fchmod": 1, "creat": 1,
	"fchmodat": 2, "fchmodat2": 2, "open": 2,
	"openat": 3,
}

// IsSetIDRefusal reports whether rule refuses name when its mode argument
// holds S_ISUID or S_ISGID (the default profile's set-ID rule).
func IsSetIDRefusal(rule SyscallRule, name string) bool {
	idx, ok := setIDModeArg[name]
	if !ok || rule.Action != specs.ActErrno {
		return false
	}
	return slices.ContainsFunc(rule.Args, func(a specs.LinuxSeccompArg) bool {
		return a.Index == idx && a.Op == specs.OpMaskedEqual && a.Value == a.ValueTwo &&
			(a.Value == unix.S_ISUID || a.Value == unix.S_ISGID)
	})
}

// DropNames removes from p every syscall name drop reports for its rule,
// and the rules left with no name.
func (p *Profile) DropNames(drop func(rule SyscallRule, name string) bool) {
	for i := range p.Syscalls {
		r := &p.Syscalls[i]
		keep := *r
		r.Names = slices.DeleteFunc(slices.Clone(r.Names), func(n string) bool { return drop(keep, n) })
		if r.Name != "" && drop(keep, r.Name) {
			r.Name = ""
		}
	}
	p.Syscalls = slices.DeleteFunc(p.Syscalls, func(r SyscallRule) bool { return len(r.Names) == 0 && r.Name == "" })
}

// ContainerProfile is the default profile for a tree inside a task
// container: without the set-ID refusals of chmod, fchmod, fchmodat,
// fchmodat2, creat, open and openat, so that `chmod g+s DIR` and
// `install -m 2775` work as in Docker. A set-ID file made there grants
// nothing: the container's root and every bind are mounted nosuid and
// its processes have no_new_privs. mknod's refusal and every other rule
// stay; on a bare host (no nosuid) the default profile applies.
func ContainerProfile() *Profile {
	p := DefaultProfile()
	p.DropNames(IsSetIDRefusal)
	p.Source = "container"
	return p
}

var containerFilter = sync.OnceValues(func() (*Filter, error) {
	return CompileProfile(ContainerProfile(), CompileOptions{})
})

// ContainerFilter is ContainerProfile compiled for this machine (once
// per process; each caller gets its own copy).
func ContainerFilter() (*Filter, error) {
	f, err := containerFilter()
	if err != nil {
		return nil, err
	}
	c := *f
	c.Program = slices.Clone(f.Program)
	c.Skipped = slices.Clone(f.Skipped)
	return &c, nil
}
