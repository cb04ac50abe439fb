package agentname

import (
	"strings"
	"testing"
)

// TestParse: every kind's forms parsed into their parts, and hostile
// names (empty, unknown kinds, an empty command or model, installed:
// with no NAME, @ with no version, versions that are not one exact npm
// release: ranges, tags, paths, shell and URL syntax) refused with an
// error naming the agent and what is wrong; a refused name keeps the
// kind its prefix names.
func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Name // Raw is tc.in
		err  string
	}{
		{"oracle", Name{Kind: Oracle}, ""},
		{"shortcut", Name{Kind: Shortcut}, ""},
		{"cmd:true", Name{Kind: Cmd, Command: "true"}, ""},
		{"cmd: echo hi > /tmp/x", Name{Kind: Cmd, Command: " echo hi > /tmp/x"}, ""},
		{"cmd:openai:x", Name{Kind: Cmd, Command: "openai:x"}, ""},
		{"openai:gpt-5", Name{Kind: OpenAI, Model: "gpt-5"}, ""},
		{"openai:qwen/qwen3:8b", Name{Kind: OpenAI, Model: "qwen/qwen3:8b"}, ""},
		{"installed:openclaw", Name{Kind: Installed, Harness: "openclaw"}, ""},
		{"installed:openclaw:gpt-5", Name{Kind: Installed, Harness: "openclaw", Model: "gpt-5"}, ""},
		{"installed:openclaw@2026.3.7:gpt-5", Name{Kind: Installed, Harness: "openclaw", Version: "2026.3.7", Model: "gpt-5"}, ""},
		{"installed:pi@1.6.0", Name{Kind: Installed, Harness: "pi", Version: "1.6.0"}, ""},
		{"installed:pi@1.6.0-beta.2+build.7:qwen3:8b", Name{Kind: Installed, Harness: "pi", Version: "1.6.0-beta.2+build.7", Model: "qwen3:8b"}, ""},
		{"installed:qwen-code:qwen3@coder", Name{Kind: Installed, Harness: "qwen-code", Model: "qwen3@coder"}, ""},
		{"installed:nosuch", Name{Kind: Installed, Harness: "nosuch"}, ""}, // known or not: agent/installed says

		{"", Name{}, "unknown agent"},
		{"robot", Name{}, "unknown agent"},
		{"openai", Name{}, "unknown agent"},
		{"Oracle", Name{}, "unknown agent"},
		{" oracle", Name{}, "unknown agent"},
		{"oracle\n", Name{}, "unknown agent"},
		{"gen:openai:x", Name{}, "unknown agent"},
		{"st:gpt-5", Name{}, "unknown agent"},
		{"cmd:", Name{Kind: Cmd}, "cmd: needs a command"},
		{"cmd: \t\n", Name{Kind: Cmd, Command: " \t\n"}, "cmd: needs a command"},
		{"openai:", Name{Kind: OpenAI}, "missing model name"},
		{"openai:  ", Name{Kind: OpenAI, Model: "  "}, "missing model name"},
		{"installed:", Name{Kind: Installed}, "want installed:NAME"},
		{"installed::gpt-5", Name{Kind: Installed}, "want installed:NAME"},
		{"installed:@1.0.0", Name{Kind: Installed}, "want installed:NAME"},
		{"installed:../pi", Name{Kind: Installed}, "want installed:NAME"},
		{"installed:Pi", Name{Kind: Installed}, "want installed:NAME"},
		{"installed:-pi", Name{Kind: Installed}, "want installed:NAME"},
		{"installed:pi/x", Name{Kind: Installed}, "want installed:NAME"},
		{"installed:pi@", Name{Kind: Installed}, "not an exact npm version"},
		{"installed:pi@:gpt-5", Name{Kind: Installed}, "not an exact npm version"},
		{"installed:pi@latest", Name{Kind: Installed}, "not an exact npm version"},
		{"installed:pi@^1.6.0", Name{Kind: Installed}, "not an exact npm version"},
		{"installed:pi@1.6", Name{Kind: Installed}, "not an exact npm version"},
		{"installed:pi@01.6.0", Name{Kind: Installed}, "not an exact npm version"},
		{"installed:pi@1.6.0/../../x", Name{Kind: Installed}, "not an exact npm version"},
		{"installed:pi@1.6.0;rm -rf /", Name{Kind: Installed}, "not an exact npm version"},
		{"installed:pi@1.6.0@2.0.0", Name{Kind: Installed}, "not an exact npm version"},
		{"installed:pi@git+https://x/y.git", Name{Kind: Installed}, "not an exact npm version"},
	} {
		tc.want.Raw = tc.in
		got, err := Parse(tc.in)
		if got != tc.want || (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("Parse(%q) = %+v, %v; want %+v, error with %q", tc.in, got, err, tc.want, tc.err)
		}
		if err != nil && !strings.Contains(err.Error(), "agent") {
			t.Errorf("Parse(%q): the error %q does not say it is about the agent", tc.in, err)
		}
		if err == nil && got.String() != tc.in {
			t.Errorf("Parse(%q).String() = %q", tc.in, got.String())
		}
	}
}

// TestKindQuestions: which kinds take a model configuration and which
// can make permission requests, decided on the kind a name's prefix
// names even when the rest is malformed (a caller refuses with the
// kind's reason).
func TestKindQuestions(t *testing.T) {
	for _, tc := range []struct {
		in                 string
		takesModel, canReq bool
	}{
		{"oracle", false, false},
		{"shortcut", false, false},
		{"cmd:true", false, true},
		{"cmd:openai:x", false, true},
		{"openai:gpt-5", true, true},
		{"openai:", true, true},
		{"installed:pi", true, true},
		{"installed:pi@x", true, true},
		{"robot", false, false},
	} {
		n, _ := Parse(tc.in)
		if n.TakesModel() != tc.takesModel || n.CanRequest() != tc.canReq {
			t.Errorf("%q: takes a model %v, can request %v; want %v, %v", tc.in, n.TakesModel(), n.CanRequest(), tc.takesModel, tc.canReq)
		}
	}
}
