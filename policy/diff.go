package policy

// Diff statuses of a policy entry (DiffEntry.Status), most telling first.
const (
	// DiffSensitive: the entry overlaps a sensitive entry of its axis.
	DiffSensitive = "sensitive"
	// DiffRequired: the entry overlaps a required entry.
	DiffRequired = "required"
	// DiffImplicit: the entry overlaps only implicit entries (it counts
	// neither for nor against the policy).
	DiffImplicit = "implicit"
	// DiffExtra: the entry overlaps nothing of the spec: a grant beyond it.
	DiffExtra = "extra"
)

// Diff statuses of a spec entry.
const (
	// DiffGranted: a policy entry covers the spec entry as written.
	DiffGranted = "granted"
	// DiffPartly: policy entries reach part of it, none all of it.
	DiffPartly = "partly"
	// DiffMissing: no policy entry reaches it.
	DiffMissing = "missing"
)

// DiffEntry is one entry of a policy or a spec in a pattern-level diff,
// with its status and the other side's entries it overlaps.
type DiffEntry struct {
	Pattern string   `json:"pattern"`
	Status  string   `json:"status"`
	Meets   []string `json:"meets,omitempty"`
}

// AxisDiff is the pattern-level diff of one axis of a policy and a spec:
// each policy entry against the spec's entries, each required and each
// sensitive entry against the policy's.
type AxisDiff struct {
	Axis      string      `json:"axis"`
	Policy    []DiffEntry `json:"policy"`
	Required  []DiffEntry `json:"required"`
	Sensitive []DiffEntry `json:"sensitive,omitempty"`
}

// DiffPolicy compares pol and spec entry by entry on every axis (the
// network axis too when the spec declares it), with the one matcher: two
// entries overlap when one matches the other's path as written (its base),
// as LintSpec compares a spec's own entries. It needs no environment, so
// it says what the entries grant as written; the static score
// (ScorePolicy) counts the files of a rootfs and resolves the execute
// axis's links, which this diff does not.
func DiffPolicy(pol *Policy, spec *Spec) []AxisDiff {
	var out []AxisDiff
	for _, a := range Axes {
		d := AxisDiff{Axis: a.String()}
		var sens []Pattern
		if spec.Sensitive != nil {
			sens = spec.Sensitive.Get(a)
		}
		d.Policy = diffGrants(pol.Get(a), spec.Required.Get(a), spec.Implicit.Get(a), sens, patternOps)
		d.Required = diffNeeds(spec.Required.Get(a), pol.Get(a), patternOps)
		if spec.Sensitive != nil {
			d.Sensitive = diffNeeds(sens, pol.Get(a), patternOps)
		}
		out = append(out, d)
	}
	if spec.Network.Declared {
		n := spec.Network
		d := AxisDiff{Axis: fieldNetwork}
		d.Policy = diffGrants(pol.Network, n.Required, n.Implicit, n.Sensitive, hostOps)
		d.Required = diffNeeds(n.Required, pol.Network, hostOps)
		d.Sensitive = diffNeeds(n.Sensitive, pol.Network, hostOps)
		out = append(out, d)
	}
	return out
}

// diffOps are how the diff compares two entries of one kind.
type diffOps[T any] struct {
	// overlaps: some path (host:port) matches both; covers: everything
	// the second names as written, the first matches.
	overlaps, covers func(a, b T) bool
	name             func(T) string
}

var patternOps = diffOps[Pattern]{
	overlaps: func(a, b Pattern) bool { return a.Match(b.Base()) || b.Match(a.Base()) },
	covers: func(a, b Pattern) bool {
		return a.Match(b.Base()) && (a.Recursive() || !b.Recursive()) && (a.HasGlob() || a.Recursive() || !b.HasGlob())
	},
	name: Pattern.String,
}

var hostOps = diffOps[HostPattern]{
	overlaps: HostPattern.Overlaps,
	covers:   HostPattern.Covers,
	name:     HostPattern.String,
}

// diffGrants gives each grant its most telling status.
func diffGrants[T any](grants, required, implicit, sensitive []T, ops diffOps[T]) []DiffEntry {
	out := make([]DiffEntry, 0, len(grants))
	for _, g := range grants {
		e := DiffEntry{Pattern: ops.name(g), Status: DiffExtra}
		for _, level := range []struct {
			status string
			list   []T
		}{{DiffSensitive, sensitive}, {DiffRequired, required}, {DiffImplicit, implicit}} {
			meets := overlapping(g, level.list, ops)
			if len(meets) > 0 {
				e.Status, e.Meets = level.status, meets
				break
			}
		}
		out = append(out, e)
	}
	return out
}

// diffNeeds says of each spec entry whether the grants cover it.
func diffNeeds[T any](needs, grants []T, ops diffOps[T]) []DiffEntry {
	out := make([]DiffEntry, 0, len(needs))
	for _, n := range needs {
		e := DiffEntry{Pattern: ops.name(n), Status: DiffMissing, Meets: overlapping(n, grants, ops)}
		if len(e.Meets) > 0 {
			e.Status = DiffPartly
		}
		for _, g := range grants {
			if ops.covers(g, n) {
				e.Status = DiffGranted
				break
			}
		}
		out = append(out, e)
	}
	return out
}

func overlapping[T any](x T, list []T, ops diffOps[T]) []string {
	var out []string
	for _, y := range list {
		if ops.overlaps(x, y) {
			out = append(out, ops.name(y))
		}
	}
	return out
}
