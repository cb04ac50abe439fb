package taskrun

import (
	"slices"
	"strings"
	"testing"

	"github.com/authbench/authbench/agent/agentname"
	"github.com/authbench/authbench/agent/installed"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/taskrun/internal/runbox"
)

// TestEveryAgentKindHasAValue: each kind of agent name runs as a value
// of agentKinds (a new kind without one fails here, not in a run).
func TestEveryAgentKindHasAValue(t *testing.T) {
	for _, k := range agentname.Kinds {
		if agentKinds[k] == nil {
			t.Errorf("agent kind %s has no value in agentKinds", k)
		}
	}
	if len(agentKinds) != len(agentname.Kinds) {
		t.Errorf("agentKinds has %d kinds, agentname %d", len(agentKinds), len(agentname.Kinds))
	}
}

// patterns is the baseline's patterns on axis a as strings.
func patterns(b policy.Baseline, a policy.Axis) []string {
	var out []string
	for _, p := range b.Permissions.Get(a) {
		out = append(out, p.String())
	}
	return out
}

// TestAgentKindValues: each name becomes the value of its kind, and each
// value widens the plan's baseline by its own runtime only, listing the
// widenings a run records (the solution's copy is not listed: it is not
// the task's).
func TestAgentKindValues(t *testing.T) {
	task := fixture(t, "secret-sensitive")
	for _, tc := range []struct {
		name                 string
		read, write, execute []string // added to the baseline
		widenings            []string // their kinds
	}{
		{"oracle", []string{"/solution/**"}, nil, nil, nil},
		{"shortcut", []string{"/solution/**"}, nil, nil, nil},
		{"cmd:true", nil, nil, nil, nil},
		{"openai:m", nil, nil, []string{runbox.BinaryInContainer}, []string{"agent-toolbox"}},
		{"installed:pi:m", []string{installed.Root + "/**", installed.StateRoot + "/**"}, []string{installed.StateRoot + "/**"},
			[]string{installed.Root + "/**"}, []string{"agent-harness", "agent-harness"}},
	} {
		a, n, err := newAgent(task, tc.name)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if n.Raw != tc.name {
			t.Errorf("%s: parsed as %+v", tc.name, n)
		}
		spec := policy.SpecBaseline(task.Spec)
		base := spec
		wider := a.baseline(&base)
		for _, ax := range []struct {
			a    policy.Axis
			want []string
		}{{policy.Read, tc.read}, {policy.Write, tc.write}, {policy.Execute, tc.execute}} {
			got := patterns(base, ax.a)[len(spec.Permissions.Get(ax.a)):]
			for _, w := range ax.want {
				if !slices.Contains(got, w) {
					t.Errorf("%s: %s baseline adds %v, want %s in it", tc.name, ax.a, got, w)
				}
			}
			if len(ax.want) == 0 && len(got) != 0 {
				t.Errorf("%s: %s baseline adds %v, want nothing", tc.name, ax.a, got)
			}
		}
		var kinds []string
		for _, w := range wider {
			kinds = append(kinds, w.Kind)
		}
		if len(kinds) < len(tc.widenings) || !slices.Equal(kinds[:len(tc.widenings)], tc.widenings) || len(tc.widenings) == 0 && len(kinds) != 0 {
			t.Errorf("%s: widenings %v, want %v first", tc.name, kinds, tc.widenings)
		}
	}
}

// TestShortcutNeedsAnAttackSmoke: the shortcut of a task without
// solution/attack_smoke.sh is refused before anything runs.
func TestShortcutNeedsAnAttackSmoke(t *testing.T) {
	if err := CheckAgent(fixture(t, "hello-standard"), "shortcut"); err == nil || !strings.Contains(err.Error(), "attack_smoke") {
		t.Errorf("shortcut of a standard task: %v", err)
	}
	if err := CheckAgent(fixture(t, "secret-sensitive"), "shortcut"); err != nil {
		t.Errorf("shortcut of a sensitive task: %v", err)
	}
}
