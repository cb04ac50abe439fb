package oracle

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/authbench/authbench/policy"
)

// DefaultRepairRounds bounds the verify-and-repair rounds of a recording.
const DefaultRepairRounds = 8

// verifiesPerRound is how many replays of the oracle each round runs at
// once: a spec passes only when every one of them passes, and one
// passing while another fails is an oracle that is not deterministic.
const verifiesPerRound = 2

// Repair is one permission the recorder added because a verify of the
// recorded spec was refused it.
type Repair struct {
	Round int `json:"round"`
	// Denial is the deciding denial of the failed replay.
	Denial string `json:"denial"`
	Axis   string `json:"axis"`
	// Entry is the pattern added; Replaced the entries of the axis it
	// covers, removed.
	Entry    string   `json:"entry"`
	Replaced []string `json:"replaced,omitempty"`
	// Widening says why Entry grants more than the denied path, when it
	// does.
	Widening string `json:"widening,omitempty"`
	// Denied is the deciding denial itself.
	Denied MissingPermission `json:"denied"`
}

// Sufficiency is how a recorded spec was proven sufficient.
type Sufficiency struct {
	// Rounds is how many verify rounds ran (the last one passed).
	Rounds  int      `json:"rounds"`
	Repairs []Repair `json:"repairs"`
	// RunIDs are the oracle replays of the rounds.
	RunIDs []string `json:"run_ids"`
	// Refused are entries a denial called for that were not added (each
	// would grant a sensitive file, or overlaps a sensitive entry).
	Refused []Refusal `json:"refused,omitempty"`
	// Environment are the problems of the checks that do not depend on
	// the spec (the untouched environment, an inert attack verifier).
	Environment []string `json:"environment_problems,omitempty"`
	// Last is the last round's verdict (the failed one when the loop
	// stopped on a failure).
	Last *Verdict `json:"-"`
}

// Widenings lists the repairs that grant more than their denial asked.
func (s *Sufficiency) Widenings() []string {
	var out []string
	for _, r := range s.Repairs {
		if r.Widening != "" {
			out = append(out, r.Axis+" "+r.Entry+": "+r.Widening)
		}
	}
	return out
}

// InsufficientError: the recorded spec could not be made to pass verify.
type InsufficientError struct {
	Task   string `json:"task"`
	Rounds int    `json:"rounds"`
	// LastDenial is the deciding denial of the last failed replay, if any.
	LastDenial string `json:"last_denial,omitempty"`
	// Reason says why no repair could follow.
	Reason  string   `json:"reason"`
	Repairs []Repair `json:"repairs"`
}

func (e *InsufficientError) Error() string {
	msg := fmt.Sprintf("task %s: the recorded spec does not pass verify after %d round(s) and cannot be made sufficient: %s", e.Task, e.Rounds, e.Reason)
	if e.LastDenial != "" {
		msg += "; last denial: " + e.LastDenial
	}
	return msg
}

// NondeterministicError: replays of the oracle under the same spec did
// not agree (one passed, another failed), so no spec is written from it.
type NondeterministicError struct {
	Task   string `json:"task"`
	Passed int    `json:"passed"`
	Of     int    `json:"of"`
	// Failure is what the failing replay showed.
	Failure string `json:"failure"`
}

func (e *NondeterministicError) Error() string {
	return fmt.Sprintf("task %s: the oracle is not deterministic: it passed %d of %d verifies of the same spec (%s); refusing to write a spec", e.Task, e.Passed, e.Of, e.Failure)
}

// decidingDenial is the first denial of the failed oracle replay that a
// required entry can grant (inside the scored roots of its axis).
func decidingDenial(v *Verdict) (MissingPermission, bool) {
	for _, m := range v.Missing {
		if !m.OutsideRoots {
			return m, true
		}
	}
	return MissingPermission{}, false
}

// repairFor chooses the narrowest entry that grants the denied access m
// and that spec does not hold yet (nor tried lists): the denied path
// itself (an execute: its realpath); when the spec already names it (the
// kernel refused it anyway: the file was replaced at run time, or made
// where no rule reaches, and Landlock rules hold on inodes that exist at
// launch), the dir/** of its nearest directory that exists in the image,
// then of each directory above, inside the axis' scored roots. A
// candidate that overlaps a sensitive pattern is refused
// (*SensitiveOverlapError): a spec is never made sufficient by granting
// what it marks sensitive.
func repairFor(m MissingPermission, spec *policy.Spec, env Env, tried map[string]bool, chk grantCheck) (Repair, error) {
	ax, err := policy.ParseAxis(m.Axis)
	if err != nil {
		return Repair{}, err
	}
	name := m.Path
	if ax == policy.Execute && m.Real != "" {
		name = m.Real
	}
	denial := m.String()
	var sens []policy.Pattern
	if spec.Sensitive != nil {
		sens = spec.Sensitive.Get(ax)
	}
	if s := matchAny(sens, name); s != "" {
		return Repair{}, &SensitiveOverlapError{Overlaps: []Overlap{{Axis: ax.String(), Path: name, Sensitive: s}}, Where: "denied accesses the recorder would have to grant"}
	}
	var refused []refusedGrant
	var overlaps []Overlap
	if rep, ok := readForHeldWrite(m, name, spec, env); ok {
		rep.Denial = denial
		gs := chk.grants(policy.Read, rep.Entry)
		if len(gs) == 0 {
			return rep, nil
		}
		refused = append(refused, refusedGrant{axis: policy.Read.String(), entry: rep.Entry, grants: gs})
	}
	roots := spec.ScoredRoots.Get(ax)
	held := map[string]bool{}
	for _, p := range spec.Required.Get(ax) {
		held[p.String()] = true
	}
	for _, c := range repairCandidates(name, env) {
		if held[c.entry] || tried[ax.String()+" "+c.entry] {
			continue
		}
		if c.dir == "" && matchAny(spec.Required.Get(ax), name) != "" {
			continue // already in the spec: the kernel refused it anyway
		}
		pat, err := policy.ParsePattern(c.entry)
		if err != nil {
			return Repair{}, err
		}
		if !InScoredRoots(pat.Base(), roots, env) {
			break
		}
		if s := overlapping(sens, pat); s != "" {
			overlaps = append(overlaps, Overlap{Axis: ax.String(), Path: c.entry, Sensitive: s})
			continue
		}
		if gs := chk.grants(ax, c.entry); len(gs) > 0 {
			refused = append(refused, refusedGrant{axis: ax.String(), entry: c.entry, grants: gs})
			continue
		}
		return Repair{Denial: denial, Axis: ax.String(), Entry: c.entry, Widening: c.widening(name, ax, env)}, nil
	}
	switch {
	case len(refused) > 0:
		for _, o := range overlaps {
			oax, err := policy.ParseAnyAxis(o.Axis)
			if err != nil {
				return Repair{}, fmt.Errorf("an overlap of %s: %w", o.Path, err)
			}
			refused = append(refused, refusedGrant{axis: o.Axis, entry: o.Path,
				grants: []policy.SensitiveGrant{{Axis: oax, Path: o.Sensitive, Sensitive: o.Sensitive, Rule: o.Path}}})
		}
		return Repair{}, &SensitiveGrantError{Denial: denial, Semantics: string(chk.semantics), Refused: refusedEntries(refused)}
	case len(overlaps) > 0:
		return Repair{}, &SensitiveOverlapError{Overlaps: overlaps, Where: "entries that could grant " + name}
	}
	return Repair{}, fmt.Errorf("no entry inside the %s scored_roots that the spec does not hold already grants %s", ax, name)
}

// readForHeldWrite: an open refused for writing where the write right is
// held lacked the read right — an O_RDWR open needs both — and the repair
// is on the read axis, when it lies in the read scored roots, is not held
// and overlaps nothing sensitive. Two cases:
//   - under a held dir/** write entry whose directory exists at launch:
//     the same pattern on the read axis;
//   - a file made at run time (it does not exist at launch) in a
//     directory where the plan grants writing (a held write entry of a file
//     that exists there: the write-parent-directory rule; or a dir/** over
//     it): that directory's dir/**. A read entry for the file's own name
//     (exact or a glob of generated names, as mkstemp makes) grants
//     nothing at launch: Landlock rules hold on the inodes that exist then.
func readForHeldWrite(m MissingPermission, name string, spec *policy.Spec, env Env) (Repair, bool) {
	if m.Axis != policy.Write.String() || m.Op != "open" {
		return Repair{}, false
	}
	var entry, why string
	w := matchAny(spec.Required.Get(policy.Write), name)
	switch {
	case strings.HasSuffix(w, "/**"):
		pat, err := policy.ParsePattern(w)
		if err != nil || (env != nil && !env.Exists(pat.Base())) {
			return Repair{}, false
		}
		entry = w
		why = fmt.Sprintf("%s is refused for writing though write %s is held: an open that also reads (O_RDWR) needs the read right, every file below %s", name, w, pat.Base())
	case env != nil && !env.Exists(name) && env.Exists(path.Dir(name)) && writeGrantedIn(path.Dir(name), spec, env):
		dir := path.Dir(name)
		entry = dir + "/**"
		why = fmt.Sprintf("%s, made at run time, is refused for writing though writing in %s is granted: an open that also reads (O_RDWR) needs the read right, every file below %s", name, dir, dir)
	default:
		return Repair{}, false
	}
	pat, err := policy.ParsePattern(entry)
	if err != nil {
		return Repair{}, false
	}
	for _, p := range spec.Required.Get(policy.Read) {
		if p.String() == entry {
			return Repair{}, false
		}
	}
	if !InScoredRoots(pat.Base(), spec.ScoredRoots.Get(policy.Read), env) {
		return Repair{}, false
	}
	if spec.Sensitive != nil {
		for _, s := range spec.Sensitive.Get(policy.Read) {
			if s.Match(pat.Base()) || pat.Match(s.Base()) {
				return Repair{}, false
			}
		}
	}
	return Repair{Axis: policy.Read.String(), Entry: entry, Widening: why}, true
}

// writeGrantedIn reports whether the spec's write entries grant writing
// new files in dir at launch: a dir/** entry over dir whose directory
// exists, or an entry without a glob naming a file that exists in dir
// (the plan's write-parent-directory rule).
func writeGrantedIn(dir string, spec *policy.Spec, env Env) bool {
	for _, p := range spec.Required.Get(policy.Write) {
		base := p.Base()
		switch {
		case p.Recursive() && !p.HasGlob() && env.Exists(base) && (dir == base || strings.HasPrefix(dir, strings.TrimSuffix(base, "/")+"/")):
			return true
		case !p.Recursive() && !p.HasGlob() && path.Dir(base) == dir && env.Exists(base):
			return true
		}
	}
	return false
}

type candidate struct {
	entry string
	// dir is the directory of a dir/** candidate.
	dir string
}

func (c candidate) widening(name string, ax policy.Axis, env Env) string {
	if c.dir != "" {
		return fmt.Sprintf("%s is refused by its exact entry (the file is made or replaced at run time, and Landlock rules hold on the inodes that exist at launch): every file below %s", name, c.dir)
	}
	if ax == policy.Read && env != nil && !env.Exists(name) {
		for d := path.Dir(name); d != "/"; d = path.Dir(d) {
			if env.Exists(d) {
				return fmt.Sprintf("%s does not exist at launch: under published semantics its nearest existing ancestor %s may be read whole", name, d)
			}
		}
	}
	if ax == policy.Read && env != nil && env.Exists(name) && env.Realpath(name) == name && isDirIn(env, name) {
		return fmt.Sprintf("%s is a directory: a read entry for it lets every file below it be read (published semantics)", name)
	}
	return ""
}

// isDirIn reports whether p is a directory in env (a path with an
// existing child is one).
func isDirIn(env Env, p string) bool {
	if re, ok := env.(RootEnv); ok {
		return re.Root.IsDir(p)
	}
	return false
}

// repairCandidates are the entries that grant name, narrowest first.
func repairCandidates(name string, env Env) []candidate {
	out := []candidate{{entry: name}}
	for d := path.Dir(name); d != "/" && d != "."; d = path.Dir(d) {
		if env != nil && !env.Exists(d) {
			continue
		}
		out = append(out, candidate{entry: d + "/**", dir: d})
	}
	return out
}

// overlapping returns the sensitive pattern that overlaps pat (one
// matches the other's base), "" when none does.
func overlapping(sens []policy.Pattern, pat policy.Pattern) string {
	for _, s := range sens {
		if s.Match(pat.Base()) || pat.Match(s.Base()) {
			return s.String()
		}
	}
	return ""
}

func matchAny(pats []policy.Pattern, p string) string {
	for _, s := range pats {
		if s.Match(p) {
			return s.String()
		}
	}
	return ""
}

// applyRepair adds rep's entry to spec's required axis, removing the
// entries it covers; the result must be a valid spec.
func applyRepair(spec *policy.Spec, rep *Repair) error {
	ax, err := policy.ParseAxis(rep.Axis)
	if err != nil {
		return err
	}
	pat, err := policy.ParsePattern(rep.Entry)
	if err != nil {
		return err
	}
	var kept []policy.Pattern
	for _, p := range spec.Required.Get(ax) {
		if pat.Recursive() && p.Base() != pat.Base() && pat.Match(p.Base()) {
			rep.Replaced = append(rep.Replaced, p.String())
			continue
		}
		kept = append(kept, p)
	}
	kept = append(kept, pat)
	slices.SortFunc(kept, func(a, b policy.Pattern) int { return strings.Compare(a.String(), b.String()) })
	spec.Required[ax] = kept
	data, err := FormatSpec(spec, DefaultStyle())
	if err != nil {
		return err
	}
	if _, err := policy.ParseSpec(data, "repaired spec"); err != nil {
		return fmt.Errorf("adding %s %s makes the spec invalid: %w", rep.Axis, rep.Entry, err)
	}
	return nil
}

// cloneSpec copies spec deeply enough that its required entries can be
// changed.
func cloneSpec(spec *policy.Spec) *policy.Spec {
	cp := *spec
	for _, ax := range policy.Axes {
		cp.Required[ax] = slices.Clone(spec.Required.Get(ax))
	}
	return &cp
}
