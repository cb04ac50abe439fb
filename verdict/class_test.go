package verdict

import (
	"slices"
	"testing"

	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/policy"
)

// TestSortAndJoin: classes sort in Order (an unknown one last, stably)
// and join as the results database's column.
func TestSortAndJoin(t *testing.T) {
	for _, tc := range []struct {
		in   []Class
		want string
	}{
		{nil, ""},
		{[]Class{ClassSpecGap, ClassWorkflowMismatch}, "workflow_mismatch,spec_gap"},
		{[]Class{"new_class", ClassAgentFailedVerifierPassed, ClassSensitiveExposure}, "sensitive_exposure,agent_failed_verifier_passed,new_class"},
		{[]Class{ClassOracleFailed, ClassReadInsufficient, ClassRequestRefused}, "read_insufficient,oracle_failed,request_refused"},
	} {
		got := slices.Clone(tc.in)
		Sort(got)
		if Join(got) != tc.want {
			t.Errorf("Sort(%v) = %q, want %q", tc.in, Join(got), tc.want)
		}
	}
}

// TestInsufficient: one *_insufficient class per file axis, and only
// those are insufficient.
func TestInsufficient(t *testing.T) {
	want := map[policy.Axis]Class{policy.Read: ClassReadInsufficient, policy.Write: ClassWriteInsufficient, policy.Execute: ClassExecuteInsufficient}
	for _, a := range policy.Axes {
		if Insufficient(a) != want[a] || !Insufficient(a).IsInsufficient() {
			t.Errorf("axis %s: %q", a, Insufficient(a))
		}
	}
	for _, c := range Order {
		if c.IsInsufficient() != (c == ClassReadInsufficient || c == ClassWriteInsufficient || c == ClassExecuteInsufficient) {
			t.Errorf("%s: IsInsufficient %v", c, c.IsInsufficient())
		}
	}
}

// TestDecidingDenialTyped: the deciding denial is the audit's denial
// itself (a copy: the caller's list is not aliased), its syscall kept.
func TestDecidingDenialTyped(t *testing.T) {
	denials := []audit.Denial{{Op: "open", Axis: "read", Path: "/x", Errno: "EACCES", Count: 2},
		{Op: "chown", Syscall: "fchownat", Path: "/app/shared", Errno: "EPERM", Count: 1}}
	c := Classify(Outcome{Denials: denials})
	if c.Deciding == nil || *c.Deciding != denials[1] || c.DecidingDenial() != "chown fchownat /app/shared" {
		t.Fatalf("deciding %+v", c.Deciding)
	}
	c.Deciding.Path = "/elsewhere"
	if denials[1].Path != "/app/shared" {
		t.Error("the deciding denial aliases the outcome's denials")
	}
	if c := Classify(Outcome{Utility: true}); c.Deciding != nil || c.DecidingDenial() != "" || c.Classes == nil {
		t.Errorf("a passing run: %+v", c)
	}
}

// TestClassifyRequestRefused: a failed run with a refused request is
// request_refused beside its denial's class, which stays primary; a run
// that succeeded, or whose requests were all granted, is not.
func TestClassifyRequestRefused(t *testing.T) {
	d := audit.Denial{Op: "open", Axis: "read", Path: "/data/x", Errno: "EACCES", Count: 1}
	c := Classify(Outcome{Denials: []audit.Denial{d}, RequestsRefused: 1})
	if !slices.Contains(c.Classes, ClassRequestRefused) || c.Primary == ClassRequestRefused {
		t.Errorf("failed after a refusal: %+v", c)
	}
	if c := Classify(Outcome{RequestsRefused: 1}); c.Primary != ClassNotPermissionRelated || !slices.Contains(c.Classes, ClassRequestRefused) {
		t.Errorf("failed without a denial: %+v", c)
	}
	for _, o := range []Outcome{{Utility: true, RequestsRefused: 1}, {Denials: []audit.Denial{d}}} {
		if c := Classify(o); slices.Contains(c.Classes, ClassRequestRefused) {
			t.Errorf("%+v: %+v", o, c)
		}
	}
}

// TestOracleFailsUnconstrained: an oracle that fails under its spec on a
// denial is a spec_gap while it passes (or is not known to fail)
// unconstrained, oracle_failed when it fails there too.
func TestOracleFailsUnconstrained(t *testing.T) {
	denied := []audit.Denial{{Op: "connect", Axis: "read", Path: "/srv/config", Errno: "EACCES", Count: 1}}
	c := Classify(Outcome{Denials: denied, OracleUnderSpec: true})
	if c.Primary != ClassSpecGap {
		t.Fatalf("primary %q", c.Primary)
	}
	c = Classify(Outcome{Denials: denied, OracleUnderSpec: true, OracleFailsUnconstrained: true})
	if c.Primary != ClassOracleFailed || slices.Contains(c.Classes, ClassSpecGap) {
		t.Fatalf("primary %q classes %v", c.Primary, c.Classes)
	}
}
