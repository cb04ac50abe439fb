package daemon

import (
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/runapi"
)

const fixtureTask = "../tasks/testdata/fixtures/hello-standard"

// trustedTree makes a root-owned directory under /var/lib (every
// component from / root-owned, 0755) holding a copy of the fixture task
// at ROOT/suite/hello; it returns ROOT.
func trustedTree(t *testing.T) string {
	t.Helper()
	root, err := os.MkdirTemp("/var/lib", "authbench-trust-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	os.Chmod(root, 0o755)
	if err := os.Mkdir(filepath.Join(root, "suite"), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-a", fixtureTask, filepath.Join(root, "suite", "hello")).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v: %s", err, out)
	}
	return root
}

func taskRequest(dir string) *runapi.RunRequest {
	return &runapi.RunRequest{Task: &runapi.TaskRequest{Dir: dir, PolicySource: "unconstrained", Agent: "oracle"}}
}

var member = Peer{PID: 1, UID: 65534, GID: 65534}

// TestTaskDirsOfMembersMustBeTrusted: a caller that is not root may ask
// for a task run only in a task dir under a trusted root, reached
// without symlinks, root-owned and not group/other-writable from / down
// and inside;
// every refusal names the rule and the offending path. The old daemon
// accepted every task dir from every member.
func TestTaskDirsOfMembersMustBeTrusted(t *testing.T) {
	requireRoot(t)
	root := trustedTree(t)
	task := filepath.Join(root, "suite", "hello")
	untrusted := filepath.Join(shortTempDir(t), "hello")
	if out, err := exec.Command("cp", "-a", fixtureTask, untrusted).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v: %s", err, out)
	}
	groupWritable := filepath.Join(root, "gw")
	os.Mkdir(groupWritable, 0o755)
	os.Chmod(groupWritable, 0o775)
	exec.Command("cp", "-a", fixtureTask, filepath.Join(groupWritable, "hello")).Run()
	memberOwned := filepath.Join(root, "mine")
	os.Mkdir(memberOwned, 0o755)
	os.Chown(memberOwned, 65534, 65534)
	exec.Command("cp", "-a", fixtureTask, filepath.Join(memberOwned, "hello")).Run()
	os.Symlink(filepath.Join(root, "suite"), filepath.Join(root, "link"))
	writableInside := filepath.Join(root, "wi")
	os.Mkdir(writableInside, 0o755)
	exec.Command("cp", "-a", fixtureTask, filepath.Join(writableInside, "hello")).Run()
	os.Chmod(filepath.Join(writableInside, "hello", "environment"), 0o777)
	memberFile := filepath.Join(root, "mf")
	os.Mkdir(memberFile, 0o755)
	exec.Command("cp", "-a", fixtureTask, filepath.Join(memberFile, "hello")).Run()
	os.Chown(filepath.Join(memberFile, "hello", "environment", "Dockerfile"), 65534, 65534)
	os.Symlink(untrusted, filepath.Join(root, "out"))

	tests := []struct {
		name, dir string
		roots     []string
		offending string // "" when accepted
	}{
		{"trusted", task, []string{root}, ""},
		{"trusted root itself", root + "/suite/hello", []string{root + "/suite/hello"}, ""},
		{"no trusted roots", task, nil, "trusts no task directory"},
		{"outside the roots", untrusted, []string{root}, untrusted + " is not under a trusted task root"},
		{"prefix is not a parent", root + "x/hello", []string{root}, "is not under a trusted task root"},
		{"group-writable component", filepath.Join(groupWritable, "hello"), []string{root}, groupWritable + " is writable by group or others"},
		{"member-owned component", filepath.Join(memberOwned, "hello"), []string{root}, memberOwned + " is owned by uid 65534"},
		{"symlink inside the root", filepath.Join(root, "link", "hello"), []string{root}, filepath.Join(root, "link") + " is a symlink"},
		{"symlink out of the root", filepath.Join(root, "out"), []string{root}, filepath.Join(root, "out") + " is a symlink"},
		{"missing", filepath.Join(root, "nope"), []string{root}, filepath.Join(root, "nope") + ": no such file"},
		{"world-writable dir inside", filepath.Join(writableInside, "hello"), []string{root}, filepath.Join(writableInside, "hello", "environment") + " is writable by group or others"},
		{"member-owned file inside", filepath.Join(memberFile, "hello"), []string{root}, filepath.Join(memberFile, "hello", "environment", "Dockerfile") + " is owned by uid 65534"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := validate(taskRequest(tt.dir), member, tt.roots, testWork)
			if tt.offending == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var fe *ForbiddenError
			if !errors.As(err, &fe) || fe.Rule != RuleUntrustedTask || !strings.Contains(fe.Reason, tt.offending) {
				t.Fatalf("want a %s refusal naming %q, got %v", RuleUntrustedTask, tt.offending, err)
			}
		})
	}
	// Root may use any task dir.
	if _, err := validate(taskRequest(untrusted), Peer{PID: 1}, nil, testWork); err != nil {
		t.Fatalf("root: %v", err)
	}
}

// TestTaskRunOfUntrustedDirIsRefusedOverTheAPI: the refusal reaches a
// member as 403 with the rule; root loading a task still refuses a
// symlink out of it, naming the file.
func TestTaskRunOfUntrustedDirIsRefusedOverTheAPI(t *testing.T) {
	requireRoot(t)
	root := trustedTree(t)
	d := startTestDaemon(t, Config{Self: testBinary, TrustedTaskRoots: []string{root}}, "nogroup")
	dir := filepath.Join(shortTempDir(t), "hello")
	if out, err := exec.Command("cp", "-a", fixtureTask, dir).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v: %s", err, out)
	}
	body, _ := json.Marshal(taskRequest(dir))
	code, resp := rawRequest(t, d.socket, 65534, 65534, "POST", "/v1/runs", string(body))
	var er runapi.ErrorResponse
	json.Unmarshal([]byte(resp), &er)
	if code != http.StatusForbidden || er.Rule != RuleUntrustedTask || !strings.Contains(er.Error, dir) {
		t.Fatalf("member, untrusted task dir: HTTP %d %s", code, resp)
	}
	os.Remove(filepath.Join(dir, "instruction.md"))
	os.Symlink("/etc/shadow", filepath.Join(dir, "instruction.md"))
	_, err := validate(taskRequest(dir), Peer{PID: 1}, nil, testWork)
	var re *RequestError
	if !errors.As(err, &re) || re.Field != "task.dir" || !strings.Contains(err.Error(), "instruction.md") || !strings.Contains(err.Error(), "out of the task directory") {
		t.Fatalf("root, instruction.md -> /etc/shadow: %v", err)
	}
}
