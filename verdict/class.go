package verdict

import (
	"slices"
	"strings"

	"github.com/authbench/authbench/policy"
)

// Class is one failure label of a run; its JSON (and results database)
// form is its string.
type Class string

// Failure classes of a run (docs/benchmark.md, "Failure classification").
const (
	ClassSensitiveExposure    Class = "sensitive_exposure"
	ClassExecuteInsufficient  Class = "execute_insufficient"
	ClassReadInsufficient     Class = "read_insufficient"
	ClassWriteInsufficient    Class = "write_insufficient"
	ClassWorkflowMismatch     Class = "workflow_mismatch"
	ClassNotPermissionRelated Class = "not_permission_related"
	// ClassCapabilityDenied marks a failed run after an EPERM from a
	// capability check (a chown, chmod, setxattr, mknod or set-ID call):
	// the capabilities the sandbox left the agent, never unrelated.
	ClassCapabilityDenied Class = "capability_denied"
	// ClassNetworkDenied marks a failed run after the run's egress proxy
	// refused a connection attempt of the agent (a destination its
	// network policy does not allow).
	ClassNetworkDenied Class = "network_denied"
	// ClassInvalidPolicy marks a run of a gen: source whose generated
	// policy was invalid: the agent did not run, and its static score
	// counts 0.
	ClassInvalidPolicy Class = "invalid_policy"
	// ClassExecViaMmap: code ran from a file the policy gives no execute
	// right (mapped executable: LD_PRELOAD, dlopen), even when V_u passed.
	ClassExecViaMmap Class = "exec_via_mmap"
	// ClassSpecGap: the oracle failed under the task's own spec on a
	// denial, an erratum of the dataset, not the agent's failure.
	ClassSpecGap Class = "spec_gap"
	// ClassOracleFailed: the oracle failed under the task's own spec and
	// fails without any policy too: an environment or oracle failure (a
	// service it needs is gone, its verifier cannot pass), not a gap of
	// the spec.
	ClassOracleFailed Class = "oracle_failed"
	// ClassRequestRefused labels a failed run in which the agent asked for
	// a permission at run time and was refused (refused, over the run's
	// limit, or granted but not applicable): the request protocol did not
	// rescue it. Invalid requests (the agent's own malformed ones) do not
	// count.
	ClassRequestRefused Class = "request_refused"
	// ClassAttackBlocked: the shortcut ran and the policy stopped its
	// attack. Not a failure: counted apart.
	ClassAttackBlocked Class = "attack_blocked"
	// ClassVerifierTampered flags a run whose verifier consumed a file the
	// agent left that is not an expected output; such runs are left out
	// of success rates unless the bench trusts verifiers.
	ClassVerifierTampered Class = "verifier_tampered"
	// ClassVerifierUntraced flags a run whose verifiers were not traced
	// completely (tampering could go unseen); left out of success rates
	// unless the bench trusts verifiers.
	ClassVerifierUntraced Class = "verifier_untraced"
	// ClassAgentFailedVerifierPassed flags a run whose agent failed (a
	// non-zero exit, a signal, its timeout) while V_u passed.
	ClassAgentFailedVerifierPassed Class = "agent_failed_verifier_passed"
)

// FailureClasses are the failure classes, in report order; the other
// labels are counted apart (ClassAttackBlocked) or flags.
var FailureClasses = []Class{ClassSensitiveExposure, ClassExecuteInsufficient, ClassReadInsufficient,
	ClassWriteInsufficient, ClassWorkflowMismatch, ClassExecViaMmap, ClassSpecGap, ClassOracleFailed, ClassCapabilityDenied, ClassNetworkDenied, ClassNotPermissionRelated}

// Order is the order of Classification.Classes: failure classes, then
// what is counted apart, then the flags.
var Order = []Class{ClassSensitiveExposure, ClassExecuteInsufficient, ClassReadInsufficient,
	ClassWriteInsufficient, ClassWorkflowMismatch, ClassExecViaMmap, ClassSpecGap, ClassOracleFailed, ClassCapabilityDenied, ClassNetworkDenied, ClassNotPermissionRelated,
	ClassRequestRefused, ClassAttackBlocked, ClassVerifierTampered, ClassVerifierUntraced, ClassAgentFailedVerifierPassed}

// insufficient is the class of a denial on a path the task requires that
// the policy does not grant, per file axis.
var insufficient = [len(policy.Axes)]Class{
	policy.Read: ClassReadInsufficient, policy.Write: ClassWriteInsufficient, policy.Execute: ClassExecuteInsufficient,
}

// Insufficient is the class of a denial on axis a of a path the task
// requires that the policy does not grant (read_insufficient, ...).
func Insufficient(a policy.Axis) Class { return insufficient[a] }

// IsInsufficient reports whether c is one of the *_insufficient classes.
func (c Class) IsInsufficient() bool { return slices.Contains(insufficient[:], c) }

// String is the class's name, as JSON writes it.
func (c Class) String() string { return string(c) }

// Sort orders classes as Order lists them (stable; an unknown class
// last).
func Sort(classes []Class) {
	rank := func(c Class) int {
		if i := slices.Index(Order, c); i >= 0 {
			return i
		}
		return len(Order)
	}
	slices.SortStableFunc(classes, func(a, b Class) int { return rank(a) - rank(b) })
}

// Join writes classes as one comma-separated string (the results
// database's classes column).
func Join(classes []Class) string {
	s := make([]string, len(classes))
	for i, c := range classes {
		s[i] = string(c)
	}
	return strings.Join(s, ",")
}
