package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBenchPipelineFlags: --pipeline's usage errors (exit 2, naming the
// reason), refused before any run starts: a count or a model without
// --pipeline, --sources or --agent with it, a bad count, no generator, an
// unknown layout file or a malformed one.
func TestBenchPipelineFlags(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.toml")
	if err := os.WriteFile(bad, []byte("[[stages]]\nstage = \"replay\"\nattempts = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := []string{"bench", "--tasks", "../tasks/testdata/fixtures", "--out", filepath.Join(t.TempDir(), "out")}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--sources", "spec", "--agent", "oracle", "--generate-attempts", "2"}, "--generate-attempts needs --pipeline"},
		{[]string{"--sources", "spec", "--agent", "oracle", "--executor", "openai:m"}, "need --pipeline"},
		{[]string{"--pipeline", "published", "--sources", "spec", "--generator", "openai:g", "--executor", "openai:e"}, "no --sources or --agent"},
		{[]string{"--pipeline", "published", "--executor", "openai:e"}, "no generator given"},
		{[]string{"--pipeline", "published", "--generator", "openai:g", "--executor", "oracle"}, "not an executor"},
		{[]string{"--pipeline", "published", "--generator", "openai:g", "--executor", "openai:e", "--unconstrained-attempts", "-1"}, "at least 1"},
		{[]string{"--pipeline", filepath.Join(t.TempDir(), "missing.toml")}, "pipeline file"},
		{[]string{"--pipeline", bad}, "unknown stage \"replay\""},
	} {
		code, _, stderr := runCLI(append(append([]string{}, base...), c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %s (want %q)", c.args, code, stderr, c.want)
		}
	}
}
