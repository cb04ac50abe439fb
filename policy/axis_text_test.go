package policy

import (
	"encoding/json"
	"testing"
)

// TestAxisText: every axis writes and reads back as its name (JSON as
// records carry it); ParseAxis keeps to the file axes, ParseAnyAxis
// takes the network axis too; a hostile name is refused.
func TestAxisText(t *testing.T) {
	for _, tc := range []struct {
		name     string
		want     Axis
		file, ok bool
	}{
		{"read", Read, true, true}, {"write", Write, true, true}, {"execute", Execute, true, true},
		{"network", Network, false, true}, {"", 0, false, false}, {"Read", 0, false, false}, {"read\x00", 0, false, false},
	} {
		a, err := ParseAnyAxis(tc.name)
		if (err == nil) != tc.ok || (tc.ok && a != tc.want) {
			t.Errorf("ParseAnyAxis(%q) = %v, %v", tc.name, a, err)
		}
		if _, err := ParseAxis(tc.name); (err == nil) != tc.file {
			t.Errorf("ParseAxis(%q): %v", tc.name, err)
		}
		var got struct{ A Axis }
		err = json.Unmarshal([]byte(`{"A": `+jsonString(tc.name)+`}`), &got)
		if (err == nil) != tc.ok || (tc.ok && got.A != tc.want) {
			t.Errorf("unmarshal %q: %v, %v", tc.name, got.A, err)
		}
	}
	for i, a := range AllAxes {
		if int(a) != i {
			t.Errorf("AllAxes[%d] = %v: the list is indexed by Axis", i, a)
		}
		data, err := json.Marshal(struct{ A Axis }{a})
		if err != nil || string(data) != `{"A":"`+a.String()+`"}` {
			t.Errorf("marshal %v: %s %v", a, data, err)
		}
	}
	if _, err := json.Marshal(struct{ A Axis }{Axis(9)}); err == nil {
		t.Error("an axis out of range marshals")
	}
	if AllAxes[len(Axes)] != Network || len(AllAxes) != len(Axes)+1 {
		t.Error("the network axis is not the fourth")
	}
}

func jsonString(s string) string {
	data, _ := json.Marshal(s)
	return string(data)
}

// TestScoreAxis: a score's axes by Axis, the network axis only when the
// spec scores it.
func TestScoreAxis(t *testing.T) {
	s := &Score{Valid: true, Axes: [len(Axes)]AxisScore{{1, 0.5, 2.0 / 3}, {0, 0, 0}, {0.25, 1, 0.4}}}
	for _, a := range Axes {
		if got, ok := s.Axis(a); !ok || got != s.Axes[a] {
			t.Errorf("%v: %v %v", a, got, ok)
		}
	}
	if _, ok := s.Axis(Network); ok {
		t.Error("an unscored network axis has a score")
	}
	s.Network = &AxisScore{1, 1, 1}
	if got, ok := s.Axis(Network); !ok || got != *s.Network {
		t.Errorf("network: %v %v", got, ok)
	}
	if _, ok := s.Axis(Axis(-1)); ok {
		t.Error("axis -1 has a score")
	}
}

// TestPermissionsGetNetwork: Permissions holds the file axes only; the
// network axis (or one out of range) has no patterns there.
func TestPermissionsGetNetwork(t *testing.T) {
	var p Permissions
	p[Read] = []Pattern{mustPatternForAxisTest(t, "/app/**")}
	if len(p.Get(Read)) != 1 || p.Get(Network) != nil || p.Get(Axis(-1)) != nil || p.Get(Axis(9)) != nil {
		t.Errorf("Get: %v %v", p.Get(Read), p.Get(Network))
	}
}

func mustPatternForAxisTest(t *testing.T, s string) Pattern {
	t.Helper()
	pat, err := ParsePattern(s)
	if err != nil {
		t.Fatal(err)
	}
	return pat
}
