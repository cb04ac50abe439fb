package sandbox

import (
	"errors"
	"fmt"
	"os"

	"github.com/authbench/authbench/policy"
	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// ErrNoLandlock means the kernel has no usable Landlock: a run must then
// be refused unless the caller explicitly allows running unenforced.
var ErrNoLandlock = errors.New("landlock is not available on this kernel (not built in, or not in the lsm= boot list)")

// KernelLandlockABI returns the Landlock ABI version authbench relies on
// with the running kernel, 0 when Landlock is unavailable: the kernel's
// version, lowered where a known erratum is not fixed (an ABI-6 kernel
// without the scoped-signal fix is used as ABI 5, as go-landlock does,
// whose Restrict would otherwise refuse the scopes).
func KernelLandlockABI() int {
	abi, _ := effectiveABI(kernelLandlock())
	return abi
}

// kernelLandlock returns the running kernel's Landlock ABI version (0:
// none) and its fixed errata.
func kernelLandlock() (version, errata int) {
	v, err := ll.LandlockGetABIVersion()
	if err != nil || v < 0 {
		return 0, 0
	}
	errata, err = ll.LandlockGetErrata()
	if err != nil {
		errata = 0 // an older kernel: nothing fixed
	}
	return v, errata
}

// KernelEnforcement is what the running kernel enforces of a plan, for
// the run record: EnforcementForKernel of its Landlock version and
// errata.
func KernelEnforcement() Enforcement { return EnforcementForKernel(kernelLandlock()) }

// EnforcementForKernel returns what a kernel with Landlock ABI version
// kernel and the fixed errata bits errata enforces: KernelABI is the
// kernel's version, ABI the one authbench relies on (see
// KernelLandlockABI), and the notes name every unfixed erratum. It is
// pure.
func EnforcementForKernel(kernel, errata int) Enforcement {
	abi, notes := effectiveABI(kernel, errata)
	e := EnforcementFor(abi)
	e.KernelABI = max(kernel, 0)
	e.Notes = append(e.Notes, notes...)
	return e
}

// Enforcement says what of a plan a kernel enforces. It is computed
// before the run (by the same function sandbox-init uses) and belongs in
// the run record.
type Enforcement struct {
	// KernelABI is the kernel's Landlock ABI version, 0 for none.
	KernelABI int `json:"kernel_abi"`
	// ABI is the version authbench uses (the kernel's, lowered where a
	// known erratum is not fixed, capped at the newest one it knows).
	ABI int `json:"abi"`
	// Handled are the rights the ruleset restricts: anything a rule does
	// not grant is refused.
	Handled policy.Access `json:"handled"`
	// Unenforced are the rights authbench knows but this kernel cannot
	// restrict: they stay allowed everywhere.
	Unenforced policy.Access `json:"unenforced"`
	// Scopes are the IPC scopes restricted; UnenforcedScopes the ones
	// this kernel cannot restrict.
	Scopes           []string `json:"scopes"`
	UnenforcedScopes []string `json:"unenforced_scopes,omitempty"`
	// Notes describe version-specific behaviour (for example, ABI 1
	// refuses every cross-directory rename).
	Notes []string `json:"notes,omitempty"`
}

// allScopes are the scopes authbench restricts when it can.
const allScopes = ScopeAbstractUnixSocket | ScopeSignal

// Gaps names what this kernel cannot enforce: the unenforced rights, and
// the unenforced scopes as "scope:NAME". A run record lists them.
func (e Enforcement) Gaps() []string {
	gaps := e.Unenforced.Names()
	for _, sc := range e.UnenforcedScopes {
		gaps = append(gaps, "scope:"+sc)
	}
	return gaps
}

// EnforcementFor returns what a kernel with Landlock ABI kernelABI
// enforces. It is pure: tests pass any version.
func EnforcementFor(kernelABI int) Enforcement {
	abi, ok := abiFor(kernelABI)
	e := Enforcement{KernelABI: max(kernelABI, 0), ABI: abi.version, Handled: abi.fs,
		Unenforced: policy.AccessAll &^ abi.fs, Scopes: abi.scopes.Names(),
		UnenforcedScopes: (allScopes &^ abi.scopes).Names()}
	if e.Scopes == nil {
		e.Scopes = []string{}
	}
	if !ok {
		e.Notes = append(e.Notes, "no Landlock: nothing of the plan is enforced")
		return e
	}
	if !abi.fs.Has(policy.AccessRefer) {
		e.Notes = append(e.Notes, "ABI 1: linking or renaming a file into another directory is always refused (stricter than the plan)")
	}
	if kernelABI > len(landlockABIs) {
		e.Notes = append(e.Notes, fmt.Sprintf("kernel ABI %d is newer than authbench knows; used as ABI %d", kernelABI, abi.version))
	}
	return e
}

// ruleAccess is one Landlock rule after the downgrade to a kernel.
type ruleAccess struct {
	path   string
	access policy.Access
}

// downgradeRules keeps the rights of each rule that the ruleset handles;
// rules left without rights are dropped (the kernel refuses them). File
// rules keep file rights only.
func downgradeRules(rules []policy.Rule, handled policy.Access) []ruleAccess {
	out := make([]ruleAccess, 0, len(rules))
	for _, r := range rules {
		acc := r.Access & handled
		if !r.Dir {
			acc &= policy.AccessFileOnly
		}
		if acc != 0 {
			out = append(out, ruleAccess{path: r.Path, access: acc})
		}
	}
	return out
}

// landlockStep decides what sandbox-init does with a plan on a kernel
// with Landlock ABI abi: apply it, skip it (no plan, or no Landlock and
// the caller allowed running unenforced), or refuse to run.
func landlockStep(plan *policy.Plan, abi int, allowUnenforced bool) (apply bool, err error) {
	switch {
	case plan == nil:
		return false, nil
	case abi > 0:
		return true, nil
	case allowUnenforced:
		return false, nil
	}
	return false, fmt.Errorf("%w; refusing to run unconfined (allow it explicitly to run anyway)", ErrNoLandlock)
}

// buildRuleset makes plan's Landlock ruleset for a kernel with Landlock
// ABI kernelABI, with the ABI-6 scopes when available (fd -1: nothing to
// restrict). Rule paths are opened now, O_PATH, in this process's view of
// the file system (inside the container, after its mounts: run-time rules
// are placed then), and the ruleset holds the objects they named: the
// same descriptor is what sandbox-init enforces on itself and what the
// openat2 agent enforces on its opening threads (see startOpenat2Agent),
// so no rule path is resolved again once the tree runs.
func buildRuleset(plan *policy.Plan, kernelABI int) (fd int, flags uint32, err error) {
	cfg, lr, abi, err := landlockRules(plan, kernelABI)
	if err != nil {
		return -1, 0, err
	}
	fd, flags, err = cfg.NewRulesetFD(lr...)
	if err != nil {
		return -1, 0, fmt.Errorf("landlock (ABI %d, %d rules): %w", abi, len(lr), err)
	}
	return fd, flags, nil
}

// restrictToRuleset restricts the process to the ruleset fd, with
// no_new_privs.
//
// With allThreads, every thread of the process is restricted (a process
// that stays, such as the tree's reaper, is confined as a whole).
// Without, only the calling thread is: for a process whose locked thread
// execs next (sandbox-init becoming the command), as its capabilities and
// no_new_privs already are per thread. An exec ends every other thread
// and the program gets the credentials, Landlock domain included, of the
// thread that exec'd; restricting the other threads too stops the world
// and signals each of them (no landlock_restrict_self TSYNC below ABI 8),
// about 1 ms on a loaded machine for nothing the command keeps.
func restrictToRuleset(fd int, flags uint32, allThreads bool) error {
	if fd < 0 {
		return nil // nothing to restrict
	}
	if allThreads {
		if err := ll.AllThreadsPrctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS) on every thread: %w", err)
		}
		if err := ll.AllThreadsLandlockRestrictSelf(fd, flags); err != nil {
			return fmt.Errorf("landlock_restrict_self on every thread: %w", err)
		}
		return nil
	}
	if err := setNoNewPrivs(); err != nil {
		return err
	}
	if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("landlock_restrict_self: %w", err)
	}
	return nil
}

// landlockRules is plan as a go-landlock configuration and rules for
// the kernel's ABI (also returned).
func landlockRules(plan *policy.Plan, kernelABI int) (landlock.Config, []landlock.Rule, int, error) {
	abi, ok := abiFor(kernelABI)
	if !ok {
		return landlock.Config{}, nil, 0, ErrNoLandlock
	}
	cfg := landlock.Config{
		HandledAccessFS: landlock.AccessFSSet(abi.fs),
		Scoped:          landlock.ScopedSet(abi.scopes),
	}
	rules := downgradeRules(placeRuntimeRules(plan.Rules, os.Stat), abi.fs)
	lr := make([]landlock.Rule, 0, len(rules))
	for _, r := range rules {
		lr = append(lr, landlock.PathAccess(landlock.AccessFSSet(r.access), r.path))
	}
	return cfg, lr, abi.version, nil
}
