package oracle

import (
	"errors"
	"reflect"
	"testing"

	"github.com/authbench/authbench/policy"
)

const repairSpec = `{
  "required_permissions": {
    "read": ["/w/README.md", "/w/src"],
    "write": ["/w/README.md"],
    "execute": ["/usr/bin/git"]
  },
  "scored_roots": {"read": ["/w"], "write": ["/w"], "execute": ["/usr/bin"]},
  "implicit_permissions": {"read": ["/etc/**"], "write": [], "execute": []},
  "sensitive_permissions": {"read": [], "write": [], "execute": ["/usr/bin/curl"]}
}`

// TestRepairFor: the entry a deciding denial calls for is the denied
// path itself; when the spec already names it (the kernel refused a file
// replaced at run time), the nearest existing directory's dir/**, as a
// widening; never a sensitive path, never outside the scored roots.
func TestRepairFor(t *testing.T) {
	env := fakeEnv{files: map[string]bool{"/w": true, "/w/src": true, "/w/src/a.py": true, "/w/README.md": true, "/usr/bin": true}}
	cases := []struct {
		name    string
		m       MissingPermission
		tried   []string
		entry   string
		widened bool
		replace []string
		err     string // "sensitive", "none"
		sens    string // a sensitive read pattern added
		write   string // a write entry added to the spec
		read    string // a read entry added to the spec
		axis    string // the repair's axis, when not the denial's
	}{
		{name: "execute: the realpath", m: MissingPermission{Axis: "execute", Path: "/usr/bin/awk", Real: "/usr/bin/mawk"}, entry: "/usr/bin/mawk"},
		{name: "read of a file made at run time: exact, wider at launch", m: MissingPermission{Axis: "read", Path: "/w/src/b.py"}, entry: "/w/src/b.py", widened: true},
		{name: "read not held: exact", m: MissingPermission{Axis: "read", Path: "/w/src/a.py"}, entry: "/w/src/a.py"},
		{name: "listing of a scored root: exact", m: MissingPermission{Axis: "read", Path: "/w"}, entry: "/w"},
		{name: "held but refused: the directory", m: MissingPermission{Axis: "read", Path: "/w/README.md"}, entry: "/w/**", widened: true,
			replace: []string{"/w/README.md", "/w/src"}},
		{name: "made in a new directory: the nearest existing one", m: MissingPermission{Axis: "read", Path: "/w/build/out/x.o"},
			tried: []string{"read /w/build/out/x.o"}, entry: "/w/**", widened: true, replace: []string{"/w/README.md", "/w/src"}},
		{name: "every candidate tried", m: MissingPermission{Axis: "read", Path: "/w/README.md"}, tried: []string{"read /w/**"}, err: "none"},
		{name: "open for writing under a held dir/** write: its read (O_RDWR)", m: MissingPermission{Axis: "write", Op: "open", Path: "/w/src/x.tmp"},
			write: "/w/src/**", axis: "read", entry: "/w/src/**", widened: true},
		{name: "a file made at run time where writing is granted (mkstemp's O_RDWR): its directory's dir/** on read",
			m: MissingPermission{Axis: "write", Op: "open", Path: "/w/.stock-k3x9q_ab"}, write: "/w/.stock-*", axis: "read", entry: "/w/**", widened: true,
			replace: []string{"/w/README.md", "/w/src"}},
		{name: "a file made at run time where writing is not granted: the write itself",
			m: MissingPermission{Axis: "write", Op: "open", Path: "/w/src/new.txt"}, entry: "/w/src/new.txt"},
		{name: "open for writing, exact write held: the directory (made at run time)", m: MissingPermission{Axis: "write", Op: "open", Path: "/w/README.md"},
			entry: "/w/**", widened: true, replace: []string{"/w/README.md"}},
		// A glob is expanded at launch: a file made during the run that
		// the spec's glob names is not granted by it, and neither the glob
		// nor the exact name it already matches is proposed again.
		{name: "a file made at run time that a held read glob names: the directory, not the glob again",
			m: MissingPermission{Axis: "read", Path: "/w/out-1.txt"}, read: "/w/out-*.txt", entry: "/w/**", widened: true,
			replace: []string{"/w/README.md", "/w/src", "/w/out-*.txt"}},
		{name: "sensitive denial", m: MissingPermission{Axis: "read", Path: "/w/.env"}, err: "sensitive", sens: "/w/.env"},
		{name: "sensitive execute by realpath", m: MissingPermission{Axis: "execute", Path: "/bin/curl", Real: "/usr/bin/curl"}, err: "sensitive"},
		{name: "only a grant over a sensitive file", m: MissingPermission{Axis: "read", Path: "/w/README.md"}, err: "sensitive", sens: "/w/notes.txt"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			spec, err := policy.ParseSpec([]byte(repairSpec), "spec")
			if err != nil {
				t.Fatal(err)
			}
			if c.write != "" {
				spec.Required[policy.Write] = append(spec.Required[policy.Write], policy.MustPattern(c.write))
			}
			if c.read != "" {
				spec.Required[policy.Read] = append(spec.Required[policy.Read], policy.MustPattern(c.read))
			}
			if c.sens != "" {
				spec.Sensitive[policy.Read] = append(spec.Sensitive[policy.Read], policy.MustPattern(c.sens))
			}
			tried := map[string]bool{}
			for _, k := range c.tried {
				tried[k] = true
			}
			rep, err := repairFor(c.m, spec, env, tried, grantCheck{})
			var so *SensitiveOverlapError
			switch {
			case c.err == "sensitive":
				if !errors.As(err, &so) {
					t.Fatalf("repair %+v, err %v: want a sensitive overlap refusal", rep, err)
				}
				return
			case c.err == "none":
				if err == nil {
					t.Fatalf("repair %+v: want no candidate", rep)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			if rep.Entry != c.entry || (rep.Widening != "") != c.widened {
				t.Fatalf("repair %+v, want entry %s (widened %v)", rep, c.entry, c.widened)
			}
			if err := applyRepair(spec, &rep); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(rep.Replaced, c.replace) {
				t.Fatalf("replaced %v, want %v", rep.Replaced, c.replace)
			}
			axis := c.m.Axis
			if c.axis != "" {
				axis = c.axis
			}
			if rep.Axis != axis {
				t.Fatalf("repair on %s, want %s", rep.Axis, axis)
			}
			ax, _ := policy.ParseAxis(axis)
			found := false
			for _, p := range spec.Required.Get(ax) {
				found = found || p.String() == c.entry
			}
			if !found {
				t.Fatalf("entry %s not in %v", c.entry, spec.Required.Get(ax))
			}
		})
	}
}
