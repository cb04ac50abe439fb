package sandbox

import (
	"errors"
	"fmt"
	"slices"

	"github.com/authbench/authbench/policy"
)

// Confinement is how sandbox-init confines a command: the mechanisms it
// applies (a Landlock plan, a seccomp filter and its openat2 agent,
// no_new_privs, the capability set, an identity, the descriptors and
// paths the tree keeps, unix-socket connects, the reaper), assembled
// from options, as go-landlock assembles a ruleset. It is the one place
// a Launch's restrictions are put together: NewConfinement checks that
// they fit, Confine fills in the command. The zero value (NewConfinement
// without options) restricts nothing.
//
//	c, err := sandbox.NewConfinement(sandbox.Confined(plan, filter), sandbox.Identity(uid, gid))
//	spec := c.Confine(sandbox.Command{Path: argv[0], Args: argv, Env: env, Dir: dir})
//
// A new mechanism is a new Launch field that sandbox-init applies and one
// Option here that sets it.
type Confinement struct {
	spec Launch
	// profile, set by SeccompProfile, is compiled once every option is
	// in (WithoutOpenat2Agent changes it first).
	profile     *Profile
	noOpenat2   bool
	identitySet bool
}

// Option is one mechanism of a Confinement (or a set of them, Confined).
type Option func(*Confinement) error

// Command is what a Confinement confines: the program and its arguments,
// environment and working directory (see Launch's fields of those names).
type Command struct {
	Path string
	Args []string
	Env  []string
	Dir  string
}

// NewConfinement applies opts in order and checks the result: an
// option's own error, a seccomp profile that does not compile, a
// Landlock ABI cap without a plan, or an openat2
// agent refused by a filter that needs it.
func NewConfinement(opts ...Option) (*Confinement, error) {
	c := &Confinement{}
	for _, opt := range opts {
		if err := opt(c); err != nil {
			return nil, fmt.Errorf("confinement: %w", err)
		}
	}
	if err := c.finish(); err != nil {
		return nil, fmt.Errorf("confinement: %w", err)
	}
	return c, nil
}

// finish compiles the seccomp profile and checks the options together.
func (c *Confinement) finish() error {
	s := &c.spec
	if c.profile != nil {
		p := c.profile
		if c.noOpenat2 {
			p = withoutOpenat2Agent(p)
		}
		f, err := CompileProfile(p, CompileOptions{})
		if err != nil {
			return err
		}
		s.Seccomp = f
	}
	switch {
	case s.LandlockABI != 0 && s.Plan == nil:
		return errors.New("a Landlock ABI cap needs a Landlock plan")
	case c.noOpenat2 && s.Seccomp != nil && s.Seccomp.Notifies():
		return fmt.Errorf("seccomp filter %s hands openat2 to the openat2 agent, which was left out (compile it with WithoutOpenat2Agent and SeccompProfile)", s.Seccomp.Profile)
	}
	if s.Plan != nil || s.Seccomp != nil {
		s.NoNewPrivs = true // sandbox-init sets it for either; the spec says so
	}
	return nil
}

// Confine returns the Launch that confines cmd: the Confinement's
// restrictions (copied: launches of one Confinement share nothing) and cmd.
func (c *Confinement) Confine(cmd Command) Launch {
	s := c.spec
	s.HidePaths = slices.Clone(s.HidePaths)
	s.Capabilities = slices.Clone(s.Capabilities)
	s.Groups = slices.Clone(s.Groups)
	if s.UID != nil {
		uid, gid := *s.UID, *s.GID
		s.UID, s.GID = &uid, &gid
	}
	s.Path, s.Args, s.Env, s.Dir = cmd.Path, cmd.Args, cmd.Env, cmd.Dir
	return s
}

// Landlock confines the tree to plan's rules; nil: no Landlock.
func Landlock(plan *policy.Plan) Option {
	return func(c *Confinement) error { c.spec.Plan = plan; return nil }
}

// LandlockPolicy confines the tree to the plan compiled from pol beneath
// root, widened by base (policy.CompilePlan).
func LandlockPolicy(pol *policy.Policy, base policy.Baseline, root *policy.Root) Option {
	return func(c *Confinement) error {
		plan, err := policy.CompilePlan(pol, base, root)
		if err != nil {
			return fmt.Errorf("compile policy %s: %w", pol.Source, err)
		}
		c.spec.Plan = plan
		return nil
	}
}

// LandlockABI caps the Landlock ABI used at abi (to reproduce an older
// kernel); 0 uses the kernel's.
func LandlockABI(abi int) Option {
	return func(c *Confinement) error {
		if abi < 0 {
			return fmt.Errorf("landlock ABI %d", abi)
		}
		c.spec.LandlockABI = abi
		return nil
	}
}

// AllowUnenforced lets a tree with a plan run unconfined on a kernel
// without Landlock (when allow is true); otherwise sandbox-init refuses.
func AllowUnenforced(allow bool) Option {
	return func(c *Confinement) error { c.spec.AllowUnenforced = allow; return nil }
}

// Seccomp installs the compiled filter f; nil: none. A filter that
// notifies openat2 brings the openat2 agent with it.
func Seccomp(f *Filter) Option {
	return func(c *Confinement) error { c.spec.Seccomp, c.profile = f, nil; return nil }
}

// SeccompProfile installs p compiled for this machine (after every
// option, so that WithoutOpenat2Agent may change it first).
func SeccompProfile(p *Profile) Option {
	return func(c *Confinement) error {
		if p == nil {
			return errors.New("seccomp profile: nil")
		}
		c.profile, c.spec.Seccomp = p, nil
		return nil
	}
}

// WithoutOpenat2Agent leaves the openat2 agent out: a SeccompProfile's
// openat2 rules answer ENOSYS instead of notifying the agent (callers
// fall back to openat, which Landlock judges on the calling thread).
func WithoutOpenat2Agent() Option {
	return func(c *Confinement) error { c.noOpenat2 = true; return nil }
}

// NoNewPrivs sets no_new_privs (a plan or a filter sets it anyway).
func NoNewPrivs() Option {
	return func(c *Confinement) error { c.spec.NoNewPrivs = true; return nil }
}

// DropCapabilities leaves the tree no capability but those Capabilities
// names (see Launch.DropCapabilities).
func DropCapabilities() Option {
	return func(c *Confinement) error { c.spec.DropCapabilities = true; return nil }
}

// Capabilities drops every capability but names (added to those of an
// earlier Capabilities): DropCapabilities with names kept.
func Capabilities(names ...string) Option {
	return func(c *Confinement) error {
		c.spec.DropCapabilities = true
		for _, n := range names {
			if !slices.Contains(c.spec.Capabilities, n) {
				c.spec.Capabilities = append(c.spec.Capabilities, n)
			}
		}
		return nil
	}
}

// Identity drops the tree to uid and gid with groups as its
// supplementary groups (none when empty).
func Identity(uid, gid int, groups ...int) Option {
	return func(c *Confinement) error {
		if uid < 0 || gid < 0 {
			return fmt.Errorf("identity %d:%d", uid, gid)
		}
		c.spec.UID, c.spec.GID, c.spec.Groups = &uid, &gid, slices.Clone(groups)
		return nil
	}
}

// CloseInheritedFDs closes every inherited descriptor above stderr at
// exec.
func CloseInheritedFDs() Option {
	return func(c *Confinement) error { c.spec.CloseFDs = true; return nil }
}

// HidePaths hides paths from the tree (see Launch.HidePaths; needs a
// mount namespace of the tree's own).
func HidePaths(paths ...string) Option {
	return func(c *Confinement) error {
		c.spec.HidePaths = append(c.spec.HidePaths, paths...)
		return nil
	}
}

// RefuseUnixConnect, when refuse is true, keeps the tree from connecting
// to pathname unix sockets its plan does not grant (see
// Launch.RefuseUnixConnect): the tree's network confinement on the host.
func RefuseUnixConnect(refuse bool) Option {
	return func(c *Confinement) error { c.spec.RefuseUnixConnect = refuse; return nil }
}

// WaitTree keeps sandbox-init as the tree's reaper (see Launch.WaitTree)
// when wait is true.
func WaitTree(wait bool) Option {
	return func(c *Confinement) error { c.spec.WaitTree = wait; return nil }
}

// ReportExit keeps the reaper (WaitTree) and reports the command's start
// and end on the gate's status pipe (see Launch.ReportExit).
func ReportExit() Option {
	return func(c *Confinement) error { c.spec.WaitTree, c.spec.ReportExit = true, true; return nil }
}

// Confined is the confinement `authbench exec` applies: Landlock to plan
// (nil: none), the seccomp filter (nil: none), inherited descriptors
// above stderr closed, no capabilities but those Capabilities names, and
// no_new_privs. The identity is left to Identity.
func Confined(plan *policy.Plan, filter *Filter) Option {
	return func(c *Confinement) error {
		for _, opt := range []Option{Landlock(plan), Seccomp(filter), CloseInheritedFDs(), DropCapabilities(), NoNewPrivs()} {
			if err := opt(c); err != nil {
				return err
			}
		}
		return nil
	}
}
