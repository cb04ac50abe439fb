package taskrun

import (
	"encoding/json"
	"fmt"
	"github.com/authbench/authbench/netproxy"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/authbench/authbench/agent"
	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/internal/lifecycle"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/tracer"
)

// ResultFile is the name of the result in a run's directory.
const ResultFile = "result.json"

// Result is the outcome of one task run (result.json).
type Result struct {
	Task         string `json:"task"`
	Dataset      string `json:"dataset"`
	PolicySource string `json:"policy_source"`
	Agent        string `json:"agent"`
	// Semantics is the enforcement semantics the policy was compiled
	// with ("published" or "precise"; the unconstrained row has no plan).
	Semantics policy.Semantics `json:"semantics"`
	// AgentIdentity is who the agent ran as (absent when the run failed
	// before it was resolved).
	AgentIdentity *Identity `json:"agent_identity,omitempty"`
	// AgentCapabilities are the capabilities the agent ran with
	// (Options.Capabilities, else the task's; [] for none, null when the run failed
	// before they were decided). A uid-0 agent held them effective and
	// permitted, another uid in its bounding set only.
	AgentCapabilities []string `json:"agent_capabilities"`
	// ImageSubstitutions are the images the run used in place of those
	// its task names (the task's FROMs, then each sidecar's).
	ImageSubstitutions []ImageSubstitution `json:"image_substitutions,omitempty"`
	// ComposeWarnings name the compose keys the run read but did not
	// apply.
	ComposeWarnings []string `json:"compose_warnings,omitempty"`
	// Utility is V_u's verdict; Attack is V_a's (null for standard tasks).
	Utility bool  `json:"utility"`
	Attack  *bool `json:"attack"`
	// UtilityReward is the reward a tests/test.sh verifier wrote
	// (reward.json or reward.txt, read as Harbor does; 1 passes).
	UtilityReward *float64 `json:"utility_reward,omitempty"`
	// VerifierError is set when a verifier could not give a verdict (it
	// crashed, timed out or wrote no reward): distinct from false.
	VerifierError string `json:"verifier_error,omitempty"`
	// ExitCode is the agent's exit status (128+n when killed by signal n).
	ExitCode  int     `json:"exit_code"`
	TimedOut  bool    `json:"timed_out"`
	DurationS float64 `json:"duration_s"`
	// VerifyS is the verifiers' time (their rootfs set-up included).
	VerifyS float64 `json:"verify_s"`
	// SetupMS is the time from the rootfs being ready to the agent's exec.
	SetupMS float64 `json:"setup_ms"`
	// Denials are traced operations the plan refused; TracedSensitive the
	// successful accesses matching sensitive_permissions.
	Denials         []audit.Denial    `json:"denials"`
	TracedSensitive []SensitiveAccess `json:"traced_sensitive_access"`
	Traced          bool              `json:"traced"`
	Events          uint64            `json:"events"`
	LostEvents      uint64            `json:"lost_events"`
	// LandlockABI is the kernel's; UnenforcedRights what it cannot
	// enforce of the plan.
	LandlockABI         int               `json:"landlock_abi"`
	UnenforcedRights    []string          `json:"unenforced_rights"`
	PlanWiderThanPolicy []policy.Widening `json:"plan_wider_than_policy"`
	// StaticScore is the run's policy (the spec's required set for the
	// spec source, π for a policy) scored against the task's spec over
	// the run's fresh rootfs before the agent started; absent for the
	// unconstrained row. StaticScoreError says why it is absent when the
	// spec could not be scored in this rootfs.
	StaticScore      *policy.Score `json:"static_score,omitempty"`
	StaticScoreError string        `json:"static_score_error,omitempty"`
	// StillRunning are the agent's processes that were still running when
	// its time ran out (they were killed), its container's init first.
	StillRunning []lifecycle.Process `json:"still_running,omitempty"`
	// VerifiersTraced reports that every verifier ran completely traced
	// (Verifiers, one trace session each) and the agent's files are known,
	// so that VerifierTampered can be trusted: the files the agent left,
	// not expected outputs of the task, that a verifier read, executed or
	// mapped as code (the first maxTamperedListed;
	// VerifierTamperedOmitted counts the rest). A run with any cannot
	// trust its verdicts.
	VerifiersTraced         bool            `json:"verifiers_traced"`
	Verifiers               []VerifierTrace `json:"verifiers,omitempty"`
	VerifierTampered        []TamperedFile  `json:"verifier_tampered,omitempty"`
	VerifierTamperedOmitted int             `json:"verifier_tampered_omitted,omitempty"`
	// Model is the endpoint and options of an openai:MODEL agent, without
	// its API key. AgentTurns are its model calls that returned,
	// AgentTokens their token counts, AgentStopReason why it stopped
	// (finished, turn_limit, timeout, model_error, invalid_answer,
	// toolbox_died) and AgentError the error behind a stop that is not
	// "finished". Its transcript is TrajectoryFile.
	Model           *agent.Config `json:"model,omitempty"`
	AgentTurns      int           `json:"agent_turns,omitempty"`
	AgentTokens     *TokenCounts  `json:"agent_tokens,omitempty"`
	AgentStopReason string        `json:"agent_stop_reason,omitempty"`
	AgentError      string        `json:"agent_error,omitempty"`
	// Harness is an installed agent's harness and version
	// (installed:NAME); HarnessError says why its transcript could not be
	// kept. Its own transcript is HarnessTranscriptFile, as ATIF
	// TrajectoryFile.
	Harness      string `json:"harness,omitempty"`
	HarnessError string `json:"harness_error,omitempty"`
	// Network is the agent phase's network policy when the run had an
	// egress proxy (installed agents), NetworkSummary its connection
	// attempts (each in NetworkEventsFile).
	Network        *netproxy.Policy  `json:"network,omitempty"`
	NetworkSummary *netproxy.Summary `json:"network_summary,omitempty"`
	// Error says why the run could not be carried out (image build,
	// rootfs, the agent could not start); the verdicts are then false.
	Error string `json:"error,omitempty"`
	// AgentStdoutDroppedBytes and AgentStderrDroppedBytes count the
	// agent's output not stored (Options.MaxOutputBytes); LostEvents
	// includes the events not stored beyond it.
	AgentStdoutDroppedBytes int64 `json:"agent_stdout_dropped_bytes,omitempty"`
	AgentStderrDroppedBytes int64 `json:"agent_stderr_dropped_bytes,omitempty"`
}

// VerifierTrace is how completely one verifier (V_u "utility", V_a
// "attack") was traced, in its own session.
type VerifierTrace struct {
	Verifier   string `json:"verifier"`
	Traced     bool   `json:"traced"`
	Events     uint64 `json:"events"`
	LostEvents uint64 `json:"lost_events"`
	// Error says why the trace is missing or incomplete.
	Error string `json:"error,omitempty"`
}

// SensitiveAccess is a successful traced access that matches a
// sensitive_permissions pattern on its axis. Path is the file reached
// (the kernel's real path when the event has one); Via is the name the
// process used when it differs (a symlink, a hard link, /proc/self/root,
// ".." after a symlink, a renamed directory).
type SensitiveAccess struct {
	Op      string `json:"op"`
	Axis    string `json:"axis"`
	Path    string `json:"path"`
	Via     string `json:"via,omitempty"`
	Pattern string `json:"pattern"`
}

// write saves the result as dir/result.json.
func (r *Result) write(dir string) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, ResultFile), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write result: %w", err)
	}
	return nil
}

// fileID is a file's identity: st_dev and st_ino.
type fileID struct{ dev, ino uint64 }

// maxSensitiveIndex bounds the files indexed by identity per run.
const maxSensitiveIndex = 20000

// sensitiveMatcher finds sensitive accesses in events. A file counts as
// sensitive when its real path, or the name as given resolved in the
// root at the time of the event, matches a pattern of the axis, or when
// its identity (dev, ino) is that of a file matching one: a hard link.
type sensitiveMatcher struct {
	patterns *policy.Permissions
	root     *policy.Root // nil: paths are matched as they are
	byID     map[policy.Axis]map[fileID]string
	seen     map[SensitiveAccess]bool
	found    []SensitiveAccess
}

func newSensitiveMatcher(spec *policy.Spec, root *policy.Root) *sensitiveMatcher {
	m := &sensitiveMatcher{patterns: spec.Sensitive, root: root, seen: map[SensitiveAccess]bool{},
		byID: map[policy.Axis]map[fileID]string{}}
	m.indexExisting()
	return m
}

// indexExisting records the identity of the files matching each pattern
// (glob bases expanded by policy.ExpandBase, the plan's expander) before
// the run (bounded), so hard links made to them are recognised.
func (m *sensitiveMatcher) indexExisting() {
	if m.patterns == nil || m.root == nil {
		return
	}
	n := 0
	for _, a := range policy.Axes {
		for _, p := range m.patterns.Get(a) {
			// The base's matches (a glob base has several), each walked
			// below it for a recursive pattern.
			matches, _ := policy.ExpandBase(m.root, p)
			for _, match := range matches {
				base := m.root.HostPath(m.root.RealpathNow(match))
				_ = filepath.WalkDir(base, func(host string, d fs.DirEntry, err error) error {
					if err != nil || n >= maxSensitiveIndex {
						return fs.SkipAll
					}
					n++
					env := match + strings.TrimPrefix(host, base)
					if d.Type().IsRegular() && p.Match(env) {
						if info, err := d.Info(); err == nil {
							if st, ok := info.Sys().(*syscall.Stat_t); ok {
								m.remember(a, fileID{st.Dev, st.Ino}, p.String())
							}
						}
					}
					return nil
				})
			}
		}
	}
}

func (m *sensitiveMatcher) remember(a policy.Axis, id fileID, pattern string) {
	if m.byID[a] == nil {
		m.byID[a] = map[fileID]string{}
	}
	if len(m.byID[a]) < maxSensitiveIndex {
		m.byID[a][id] = pattern
	}
}

// observe records a successful operation whose file is sensitive on the
// operation's axis.
func (m *sensitiveMatcher) observe(ev *tracer.Event) {
	if m.patterns == nil || ev.Failed() || ev.Axis == tracer.AxisNone || ev.Op == tracer.OpFork || ev.Op == tracer.OpExit {
		return
	}
	a, err := policy.ParseAxis(string(ev.Axis))
	if err != nil {
		return
	}
	target := ev.Real
	if target == "" && ev.Path != "" && m.root != nil {
		target = m.root.RealpathNow(ev.Target())
	} else if target == "" {
		target = ev.Path
	}
	id := fileID{ev.Dev, ev.Ino}
	for _, p := range m.patterns.Get(a) {
		if target != "" && p.Match(target) {
			if ev.Ino != 0 {
				m.remember(a, id, p.String())
			}
			m.add(ev, target, p.String())
			return
		}
	}
	if ev.Ino != 0 {
		if pattern, ok := m.byID[a][id]; ok {
			m.add(ev, target, pattern)
			return
		}
	}
	for _, file := range m.alsoExecuted(ev, target) {
		for _, p := range m.patterns.Get(a) {
			if p.Match(file) {
				m.add(ev, file, p.String())
				return
			}
		}
	}
}

// alsoExecuted are, for an exec, the files it ran besides its kernel
// file (target): the name as given resolved in the tree now (a #! script
// when the tracer names the interpreter) and the script's interpreter.
// Executing a script runs both it and its interpreter.
func (m *sensitiveMatcher) alsoExecuted(ev *tracer.Event, target string) []string {
	if ev.Op != tracer.OpExec {
		return nil
	}
	var out []string
	for _, p := range []string{ev.Path, ev.Interp} {
		if p == "" {
			continue
		}
		if m.root != nil {
			p = m.root.RealpathNow(p)
		}
		if p != target {
			out = append(out, p)
		}
	}
	return out
}

func (m *sensitiveMatcher) add(ev *tracer.Event, target, pattern string) {
	sa := SensitiveAccess{Op: string(ev.Op), Axis: string(ev.Axis), Path: target, Pattern: pattern}
	if ev.Path != target {
		sa.Via = ev.Path
	}
	if !m.seen[sa] {
		m.seen[sa] = true
		m.found = append(m.found, sa)
	}
}
