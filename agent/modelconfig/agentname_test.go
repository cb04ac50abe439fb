package modelconfig

import (
	"strings"
	"testing"
)

// TestParseInstalledName: the pinned, unpinned and model forms, and
// versions that are not one exact npm release (ranges, tags, paths,
// shell and URL syntax) refused with the reason.
func TestParseInstalledName(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want InstalledName
		ok   bool
		err  string
	}{
		{"installed:openclaw", InstalledName{Harness: "openclaw"}, true, ""},
		{"installed:openclaw:gpt-5", InstalledName{Harness: "openclaw", Model: "gpt-5"}, true, ""},
		{"installed:openclaw@2026.3.7:gpt-5", InstalledName{"openclaw", "2026.3.7", "gpt-5"}, true, ""},
		{"installed:pi@1.6.0", InstalledName{Harness: "pi", Version: "1.6.0"}, true, ""},
		{"installed:pi@1.6.0-beta.2+build.7:qwen3:8b", InstalledName{"pi", "1.6.0-beta.2+build.7", "qwen3:8b"}, true, ""},
		{"installed:qwen-code:qwen3@coder", InstalledName{Harness: "qwen-code", Model: "qwen3@coder"}, true, ""},
		{"openai:gpt-5", InstalledName{}, false, ""},
		{"installed:pi@", InstalledName{}, true, "not an exact npm version"},
		{"installed:pi@latest", InstalledName{}, true, "not an exact npm version"},
		{"installed:pi@^1.6.0", InstalledName{}, true, "not an exact npm version"},
		{"installed:pi@1.6", InstalledName{}, true, "not an exact npm version"},
		{"installed:pi@01.6.0", InstalledName{}, true, "not an exact npm version"},
		{"installed:pi@1.6.0/../../x", InstalledName{}, true, "not an exact npm version"},
		{"installed:pi@1.6.0;rm -rf /", InstalledName{}, true, "not an exact npm version"},
		{"installed:pi@1.6.0@2.0.0", InstalledName{}, true, "not an exact npm version"},
		{"installed:pi@git+https://x/y.git", InstalledName{}, true, "not an exact npm version"},
		{"installed:", InstalledName{}, true, "want installed:NAME"},
		{"installed:@1.0.0", InstalledName{}, true, "want installed:NAME"},
		{"installed:../pi", InstalledName{}, true, "want installed:NAME"},
		{"installed:Pi", InstalledName{}, true, "want installed:NAME"},
	} {
		got, ok, err := ParseInstalledName(tc.in)
		if got != tc.want || ok != tc.ok || (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: %+v %v %v", tc.in, got, ok, err)
		}
		if _, mok, merr := ParseModelName(tc.in); tc.ok && mok != tc.ok || (merr == nil) != (tc.err == "") {
			t.Errorf("ParseModelName(%s): %v %v (not the same parse)", tc.in, mok, merr)
		}
	}
}
