package policy

import (
	"strings"
	"testing"
)

func TestParseAnswer(t *testing.T) {
	valid := `{"read": ["/a"], "write": [], "execute": []}`
	for _, c := range []struct {
		name, answer string
		ok           bool
		err          string
	}{
		{"alone", valid, true, ""},
		{"white space", "\n  " + valid + "\n\n", true, ""},
		{"fenced", "Here it is:\n```json\n" + valid + "\n```\nDone.", true, ""},
		{"fenced without info", "```\n" + valid + "\n```", true, ""},
		{"after chatter", "looked at /a\nfound it\n" + valid + "\n", true, ""},
		{"multi-line after chatter", "notes\n{\n  \"read\": [\"/a\"],\n  \"write\": [],\n  \"execute\": []\n}\n", true, ""},
		{"prose", "the agent needs /a", false, "not valid JSON"},
		{"relative", `{"read": ["a"], "write": [], "execute": []}`, false, "read[0]"},
		{"missing key", `{"read": [], "write": []}`, false, "execute"},
		{"extra key", `{"read": [], "write": [], "execute": [], "network": []}`, false, "network"},
		{"two fences", "```\n" + valid + "\n```\n```\n" + valid + "\n```", false, "not valid JSON"},
		{"empty", "", false, ""},
	} {
		pol, err := ParseAnswer(c.answer)
		if c.ok != (err == nil) || c.ok && len(pol.Get(0)) != 1 || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: %v %v (want ok %v, error with %q)", c.name, pol, err, c.ok, c.err)
		}
	}
}
