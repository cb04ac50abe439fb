package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/agent/agenttest"
	"github.com/authbench/authbench/cli/core"
	"github.com/authbench/authbench/internal/testenv"
)

// TestGenerateCommand runs `authbench generate` embedded: the heuristic
// (--out, --json), a cmd: generator printing garbage (exit 1, the answer
// kept in --out), one answering with a fenced block (--out holds the
// normalised policy, which policy check accepts), and an openai generator against a scripted server
// configured through OPENAI_BASE_URL and OPENAI_API_KEY, whose key
// appears in no file of the state directory.
func TestGenerateCommand(t *testing.T) {
	requireLandlockCLI(t)
	testenv.NeedTools(t, "runc", "buildah", "debootstrap")
	bin := benchBinary(t)
	task := "../tasks/testdata/fixtures/hello-standard"
	state := t.TempDir()
	common := []string{"--images-dir", testenv.ImagesDir(), "--state-dir", state}
	out := filepath.Join(t.TempDir(), "policy.json")

	args := append([]string{"generate", task, "--generator", "heuristic", "--out", out, "--json"}, common...)
	code, stdout, stderr := runBinary(t, bin, "", args...)
	if code != 0 {
		t.Fatalf("heuristic: exit %d %s", code, stderr)
	}
	var recs []map[string]any
	if err := json.Unmarshal([]byte(stdout), &recs); err != nil || len(recs) != 1 || recs[0]["valid"] != true {
		t.Fatalf("heuristic --json: %v %s", err, stdout)
	}
	if data, err := os.ReadFile(out); err != nil || !strings.Contains(string(data), "/app/**") {
		t.Fatalf("heuristic --out: %v %s", err, data)
	}

	args = append([]string{"generate", task, "--generator", "cmd:echo no policy here", "--out", out}, common...)
	code, _, stderr = runBinary(t, bin, "", args...)
	if code != 1 || !strings.Contains(stderr, "INVALID: invalid policy") {
		t.Fatalf("garbage: exit %d %s", code, stderr)
	}
	if data, _ := os.ReadFile(out); string(data) != "no policy here\n" {
		t.Fatalf("garbage --out: %q", data)
	}

	// A fenced answer: --out holds the policy as every reader parses it,
	// the record keeps the answer as given.
	fenced := `cmd:printf '%s\n' 'The policy:' '` + "```json" + `' '{"read": ["/app//input.txt"], "write": [], "execute": []}' '` + "```" + `'`
	args = append([]string{"generate", task, "--generator", fenced, "--out", out, "--json"}, common...)
	code, stdout, stderr = runBinary(t, bin, "", args...)
	if code != 0 {
		t.Fatalf("fenced: exit %d %s", code, stderr)
	}
	recs = nil
	if err := json.Unmarshal([]byte(stdout), &recs); err != nil || len(recs) != 1 || !strings.Contains(recs[0]["policy_raw"].(string), "```json") {
		t.Fatalf("fenced --json: the record should keep the raw answer: %v %s", err, stdout)
	}
	if code, _, stderr := runBinary(t, bin, "", "policy", "check", out); code != 0 {
		data, _ := os.ReadFile(out)
		t.Fatalf("policy check of the --out file %q: exit %d %s", data, code, stderr)
	}
	if data, _ := os.ReadFile(out); strings.Contains(string(data), "```") || !strings.Contains(string(data), `"/app/input.txt"`) {
		t.Fatalf("fenced --out: %q, want the normalised policy", data)
	}

	const key = "sk-cli-generate-secret"
	srv := agenttest.New(t, agenttest.Reply{Content: `{"read": ["/app/input.txt"], "write": [], "execute": []}`})
	cmd := exec.Command(bin, append([]string{"generate", task, "--generator", "openai:m1", "--json", "--log-level", "debug"}, common...)...)
	cmd.Env = append(os.Environ(), core.SocketEnv+"=", "OPENAI_BASE_URL="+srv.URL, "OPENAI_API_KEY="+key)
	code, stdout, stderr = runCmd(t, cmd)
	if code != 0 || !strings.Contains(stdout, `"stop_reason":"finished"`) {
		t.Fatalf("openai: exit %d %s %s", code, stdout, stderr)
	}
	if strings.Contains(stdout+stderr, key) {
		t.Errorf("the API key is in the output or the logs")
	}
	if reqs := srv.Requests(); len(reqs) != 1 || reqs[0].Authorization != "Bearer "+key || reqs[0].Model != "m1" {
		t.Fatalf("requests: %+v", reqs)
	}
	err := filepath.Walk(state, func(p string, info os.FileInfo, err error) error {
		if err != nil || !info.Mode().IsRegular() {
			return err
		}
		data, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(data), key) {
			t.Errorf("%s holds the API key", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestTrialFile(t *testing.T) {
	for _, c := range []struct {
		out  string
		n    int
		want string
	}{
		{"p.json", 1, "p.json"},
		{"p.json", 2, "p.2.json"},
		{"/x/policy", 3, "/x/policy.3"},
		{"a.b/p.json", 10, "a.b/p.10.json"},
	} {
		if got := trialFile(c.out, c.n); got != c.want {
			t.Errorf("trialFile(%q, %d) = %q, want %q", c.out, c.n, got, c.want)
		}
	}
}
