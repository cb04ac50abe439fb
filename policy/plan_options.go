package policy

import (
	"errors"
	"fmt"
	"strings"
)

// Semantics names how the policy's patterns are turned into Landlock
// rules. A spec's implicit entries (SpecBaseline) are compiled like the
// policy's, as the published launcher takes them; the default baseline
// and the sandbox essentials are always compiled with SemanticsPrecise.
type Semantics string

// The enforcement semantics a plan can be compiled with.
const (
	// SemanticsPrecise grants each pattern as little as Landlock can
	// express (docs/security.md): the default.
	SemanticsPrecise Semantics = "precise"
	// SemanticsPublished reproduces the published AuthBench launcher
	// rule for rule: a write pattern grants the write, create and remove
	// rights on the target's parent directory, a missing read target its
	// closest existing ancestor.
	SemanticsPublished Semantics = "published"
)

// The default semantics, one per kind of run, both owned here so that an
// unnamed semantics means one thing for each kind; clients name theirs in
// every request, and the daemon records the semantics it applied.
const (
	// DefaultSemantics is a command's (exec, policy plan, a command run
	// of the API): the policy's own meaning.
	DefaultSemantics = SemanticsPrecise
	// DefaultTaskSemantics is a task run's and a bench's: the published
	// AuthBench launcher's rules, so that the spec row is comparable with
	// published numbers.
	DefaultTaskSemantics = SemanticsPublished
)

// ParseSemantics parses "precise" or "published"; "" is DefaultSemantics.
func ParseSemantics(s string) (Semantics, error) {
	return ParseSemanticsOr(s, DefaultSemantics)
}

// ParseSemanticsOr parses "precise" or "published"; "" is def.
func ParseSemanticsOr(s string, def Semantics) (Semantics, error) {
	switch Semantics(s) {
	case "":
		return def, nil
	case SemanticsPrecise, SemanticsPublished:
		return Semantics(s), nil
	}
	return "", fmt.Errorf("unknown enforcement semantics %q (want %s or %s)", s, SemanticsPrecise, SemanticsPublished)
}

// PlanOptions are the choices CompilePlanWith takes. The zero value is
// what CompilePlan does.
type PlanOptions struct {
	// Semantics is how policy patterns become rules ("" is precise).
	Semantics Semantics
	// RefuseSymlinks makes a policy pattern whose rule is reached
	// through a symlink, and whose target no pattern of the same axis
	// matches, an error (*SymlinkError) instead of an entry in
	// Plan.Wider.
	RefuseSymlinks bool
	// RuntimeMounts are the mount points the container sets up at run
	// time (/proc, /sys, /dev, tmpfs mounts, sidecar volumes): patterns
	// below them that the rootfs does not hold become run-time rules
	// (Rule.Runtime).
	RuntimeMounts []string
}

// ErrUnenforceablePattern is returned (wrapped) for a pattern that holds
// a byte no kernel path can contain (NUL): scoring may still read it, but
// it cannot be enforced.
var ErrUnenforceablePattern = errors.New("pattern holds a NUL byte, which no kernel path can contain")

// checkKernelPath returns ErrUnenforceablePattern when p cannot name a
// path the kernel accepts. Length is bounded by MaxPatternBytes already.
func checkKernelPath(p Pattern) error {
	if strings.IndexByte(p.String(), 0) >= 0 {
		return ErrUnenforceablePattern
	}
	return nil
}
