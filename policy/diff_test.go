package policy

import (
	"reflect"
	"testing"
)

func TestDiffPolicy(t *testing.T) {
	spec, err := ParseSpec([]byte(`{
		"required_permissions": {"read": ["/app/in.txt", "/data/**"], "write": ["/app/out/*.csv"], "execute": ["/usr/bin/python3"]},
		"scored_roots": {"read": ["/app", "/data", "/root"], "write": ["/app"], "execute": ["/usr/bin"]},
		"implicit_permissions": {"read": ["/etc/ld.so.cache"], "write": [], "execute": []},
		"sensitive_permissions": {"read": ["/root/.ssh/**"], "write": [], "execute": []}
	}`), "spec.json")
	if err != nil {
		t.Fatal(err)
	}
	pol, err := ParsePolicy([]byte(`{
		"read": ["/app/**", "/data/a.txt", "/etc/ld.so.cache", "/root/.ssh/id_rsa", "/opt/x"],
		"write": ["/app/out/*"],
		"execute": []
	}`), "policy.json")
	if err != nil {
		t.Fatal(err)
	}
	got := DiffPolicy(pol, spec)
	want := []AxisDiff{
		{Axis: "read",
			Policy: []DiffEntry{
				{"/app/**", DiffRequired, []string{"/app/in.txt"}},
				{"/data/a.txt", DiffRequired, []string{"/data/**"}},
				{"/etc/ld.so.cache", DiffImplicit, []string{"/etc/ld.so.cache"}},
				{"/root/.ssh/id_rsa", DiffSensitive, []string{"/root/.ssh/**"}},
				{"/opt/x", DiffExtra, nil},
			},
			Required: []DiffEntry{
				{"/app/in.txt", DiffGranted, []string{"/app/**"}},
				{"/data/**", DiffPartly, []string{"/data/a.txt"}},
			},
			Sensitive: []DiffEntry{{"/root/.ssh/**", DiffPartly, []string{"/root/.ssh/id_rsa"}}},
		},
		{Axis: "write",
			Policy:    []DiffEntry{{"/app/out/*", DiffRequired, []string{"/app/out/*.csv"}}},
			Required:  []DiffEntry{{"/app/out/*.csv", DiffGranted, []string{"/app/out/*"}}},
			Sensitive: []DiffEntry{},
		},
		{Axis: "execute",
			Policy:    []DiffEntry{},
			Required:  []DiffEntry{{"/usr/bin/python3", DiffMissing, nil}},
			Sensitive: []DiffEntry{},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("DiffPolicy:\n got %+v\nwant %+v", got, want)
	}
}

// TestDiffCovers pins which grant covers which spec entry as written.
func TestDiffCovers(t *testing.T) {
	for _, c := range []struct {
		grant, need string
		covers      bool
	}{
		{"/a/**", "/a/b", true},
		{"/a/**", "/a/b/**", true},
		{"/a/**", "/a/*.txt", true},
		{"/a/b", "/a/**", false},
		{"/a/*", "/a/b/**", false},
		{"/a/*", "/a/*.txt", true},
		{"/a/b.txt", "/a/*.txt", false},
		{"/a/c", "/a/b", false},
	} {
		if got := patternOps.covers(MustPattern(c.grant), MustPattern(c.need)); got != c.covers {
			t.Errorf("covers(%s, %s) = %v, want %v", c.grant, c.need, got, c.covers)
		}
	}
}

func TestDiffNetworkAxis(t *testing.T) {
	spec, err := ParseSpec([]byte(`{
		"required_permissions": {"read": [], "write": [], "execute": [], "network": ["pypi.org:443"]},
		"scored_roots": {"read": [], "write": [], "execute": []},
		"implicit_permissions": {"read": [], "write": [], "execute": []},
		"sensitive_permissions": {"read": [], "write": [], "execute": [], "network": ["evil.example:443"]}
	}`), "spec.json")
	if err != nil {
		t.Fatal(err)
	}
	pol, err := ParsePolicyFor([]byte(`{"read": [], "write": [], "execute": [], "network": ["*:443"]}`), "policy.json", spec)
	if err != nil {
		t.Fatal(err)
	}
	got := DiffPolicy(pol, spec)
	if len(got) != 4 || got[3].Axis != "network" {
		t.Fatalf("no network axis: %+v", got)
	}
	n := got[3]
	if n.Policy[0].Status != DiffSensitive || n.Required[0].Status != DiffGranted || n.Sensitive[0].Status != DiffGranted {
		t.Errorf("network diff: %+v", n)
	}
}
