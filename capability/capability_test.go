package capability

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestNumbers(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  []int
		err   string
	}{
		{nil, nil, ""},
		{[]string{"CAP_FOWNER", "CAP_CHOWN", "CAP_FOWNER"}, []int{0, 3}, ""},
		{[]string{"CAP_CHECKPOINT_RESTORE"}, []int{40}, ""},
		{[]string{"CAP_CHOWN", "cap_chown", "CAP_NOPE"}, nil, `unknown capabilities "cap_chown", "CAP_NOPE"`},
	} {
		got, err := Numbers(c.names)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("Numbers(%q): err %v, want %q", c.names, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Numbers(%q) = %v, %v; want %v", c.names, got, err, c.want)
		}
	}
	// The table names every capability of a kernel whose last is
	// CAP_CHECKPOINT_RESTORE (40).
	if data, err := os.ReadFile("/proc/sys/kernel/cap_last_cap"); err == nil && strings.TrimSpace(string(data)) == "40" && Known() != 41 {
		t.Errorf("the table has %d names, the kernel 41 capabilities", Known())
	}
}

func TestHeld(t *testing.T) {
	if got := Held(nil); len(got) != 0 {
		t.Errorf("Held(nil) = %v, want none (uid 0 included)", got)
	}
	got := Held([]string{"CAP_CHOWN", "CAP_NOPE"})
	if !reflect.DeepEqual(got, map[string]bool{"CAP_CHOWN": true}) {
		t.Errorf("Held = %v", got)
	}
}

func TestParseSet(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
		err  string
	}{
		{"none", []string{}, ""},
		{" docker ", Docker, ""},
		{"chown, CAP_FOWNER,net_raw,CHOWN", []string{"CAP_CHOWN", "CAP_FOWNER", "CAP_NET_RAW"}, ""},
		{"", nil, "empty capability set"},
		{"chown,nope", nil, `unknown capability "nope"`},
		{"CAP_", nil, `unknown capability "CAP_"`},
	} {
		got, err := ParseSet(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseSet(%q): err %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) || got == nil {
			t.Errorf("ParseSet(%q) = %#v, %v; want %v", c.in, got, err, c.want)
		}
	}
	if got, _ := ParseSet(SetDocker); &got[0] == &Docker[0] {
		t.Error("ParseSet(docker) shares Docker's backing array")
	}
}
