package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/cli/core"
)

func TestEnvBaseFamilyFlag(t *testing.T) {
	code, _, errOut := runCLI("env", "base", "--images-dir", t.TempDir(), "--family", "nope")
	if code != core.ExitUsage || !strings.Contains(errOut, `unknown base family "nope"`) || !strings.Contains(errOut, "python-py313") {
		t.Errorf("unknown family: exit %d: %s", code, errOut)
	}
	code, out, _ := runCLI("env", "base", "--help")
	if code != core.ExitOK || !strings.Contains(out, "tbench-python-py313") || !strings.Contains(out, "trixie") {
		t.Errorf("help: exit %d: %s", code, out)
	}
}

// TestEnvBuildRefusesHeredocItCannotRun: the refusal names the line, and
// nothing is built.
func TestEnvBuildRefusesHeredocItCannotRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bad-heredoc")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(taskFixtures, "hello-standard"))); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "environment"), "Dockerfile", "FROM authbench-base\nWORKDIR /app\nCOPY <<EOF /app/x\n$HOME\nEOF\n")
	code, _, errOut := runCLI("env", "build", "--images-dir", t.TempDir(), dir)
	if code != core.ExitUsage || !strings.Contains(errOut, "environment/Dockerfile:3: heredoc the builder cannot run") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}
