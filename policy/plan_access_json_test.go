package policy

import (
	"encoding/json"
	"strings"
	"testing"
)

// slowAccess is how UnmarshalJSON decoded before its fast path: through
// encoding/json.
func slowAccess(data string) (Access, error) {
	var names []string
	if err := json.Unmarshal([]byte(data), &names); err != nil {
		return 0, err
	}
	var out Access
	for _, n := range names {
		r, err := ParseAccess(n)
		if err != nil {
			return 0, err
		}
		out |= r
	}
	return out, nil
}

func TestAccessJSONFastPath(t *testing.T) {
	tests := []struct {
		doc    string
		fast   bool // taken by parseAccessList
		want   Access
		errSub string
	}{
		{`[]`, true, 0, ""},
		{` [ ] `, true, 0, ""},
		{`["read_file"]`, true, AccessReadFile, ""},
		{`["read_file","read_dir"]`, true, AccessReadFile | AccessReadDir, ""},
		{"[ \"execute\" ,\n\t\"truncate\" ]", true, AccessExecute | AccessTruncate, ""},
		{`["read_file","read_file"]`, true, AccessReadFile, ""},
		{`["read_file","no_such_right"]`, true, 0, `unknown Landlock access right "no_such_right"`},
		{`["no_such_right","other"]`, true, 0, `"no_such_right"`},
		{`["read\u005ffile"]`, false, AccessReadFile, ""}, // an escape: encoding/json decodes it
		{`null`, false, 0, ""},
		{`["read_file",1]`, false, 0, "cannot unmarshal"},
		{`{"read_file":true}`, false, 0, "cannot unmarshal"},
		{`""`, false, 0, "cannot unmarshal"},
	}
	for _, tc := range tests {
		_, fast, _ := parseAccessList([]byte(tc.doc))
		if fast != tc.fast {
			t.Errorf("%s: fast path %v, want %v", tc.doc, fast, tc.fast)
		}
		var got Access
		err := json.Unmarshal([]byte(tc.doc), &got)
		switch {
		case tc.errSub == "" && err != nil:
			t.Errorf("%s: %v", tc.doc, err)
		case tc.errSub != "" && (err == nil || !strings.Contains(err.Error(), tc.errSub)):
			t.Errorf("%s: error %v, want %q", tc.doc, err, tc.errSub)
		case err == nil && got != tc.want:
			t.Errorf("%s = %v, want %v", tc.doc, got, tc.want)
		}
		if slow, serr := slowAccess(tc.doc); (serr == nil) != (err == nil) || err == nil && slow != got {
			t.Errorf("%s: fast %v (%v) and encoding/json %v (%v) disagree", tc.doc, got, err, slow, serr)
		}
	}
}

// TestAccessJSONRoundTrip: every set of known rights marshals as
// encoding/json would marshal its names, and reads back the same.
func TestAccessJSONRoundTrip(t *testing.T) {
	for a := Access(0); a <= AccessAll; a += 1 + a/97 { // a spread over all sets, every bit included
		data, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		names := a.Names()
		if names == nil {
			names = []string{}
		}
		want, _ := json.Marshal(names)
		if string(data) != string(want) {
			t.Fatalf("%v marshals as %s, want %s", a, data, want)
		}
		var back Access
		if err := json.Unmarshal(data, &back); err != nil || back != a {
			t.Fatalf("%s reads back as %v, %v", data, back, err)
		}
	}
	if data, _ := json.Marshal(AccessAll); !strings.Contains(string(data), `"resolve_unix"`) {
		t.Errorf("AccessAll = %s", data)
	}
	unknown := Access(1 << 40)
	data, _ := json.Marshal(unknown)
	if want, _ := json.Marshal([]string{"1<<40"}); string(data) != string(want) {
		t.Errorf("an unknown bit marshals as %s, want %s", data, want)
	}
}
