package taskrun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
)

// swapAgent runs in the secret-sensitive task's container, where it may
// write /app and read only /app/data.csv: it tries the sensitive
// /app/config/deploy.key (refused), puts a symlink to it at the rule's
// path (the file renamed away), then reads the renamed file through
// openat2 (ctypes, no fallback, as OpenClaw and cap-std call it: the
// tree's first openat2) and the key through the rule's path with openat2
// and open(2). One line per step: its name and "ok:<bytes>", "ok" or the
// error.
const swapAgent = `cmd:python3 -c '
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
class How(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]
def openat2(path):
    how = How(os.O_RDONLY | os.O_CLOEXEC, 0, 0)
    fd = libc.syscall(437, -100, path.encode(), ctypes.byref(how), ctypes.sizeof(how))
    if fd < 0:
        raise OSError(ctypes.get_errno(), "openat2")
    return fd
def read(fd):
    try:
        return "ok:" + str(len(os.read(fd, 1 << 20)))
    finally:
        os.close(fd)
def step(name, f):
    try:
        r = f()
        print(name, r if r else "ok")
    except OSError as e:
        print(name, os.strerror(e.errno).replace(" ", "_"))
step("open-key", lambda: read(os.open("/app/config/deploy.key", os.O_RDONLY)))
step("rename", lambda: os.rename("/app/data.csv", "/app/data.old"))
step("symlink", lambda: os.symlink("/app/config/deploy.key", "/app/data.csv"))
step("openat2-renamed", lambda: read(openat2("/app/data.old")))
step("openat2-after", lambda: read(openat2("/app/data.csv")))
step("open-after", lambda: read(os.open("/app/data.csv", os.O_RDONLY)))
'`

// TestOpenat2AgentRulesFixedAtStartInContainer: in a task container
// (runc, the container profile), a tree that may write in a read rule's
// parent swaps the rule's file for a symlink to a sensitive key after the
// start; openat2 (the openat2 agent's open) and open(2) through it are
// both refused, while openat2 reads the rule's file at its new name (the
// rule is the object, not the path). An agent that resolved the rule
// paths again at the tree's first openat2 read the key.
func TestOpenat2AgentRulesFixedAtStartInContainer(t *testing.T) {
	setup(t)
	pi, err := policy.ParsePolicy([]byte(`{"read": ["/app/data.csv"], "write": ["/app/**"], "execute": ["/usr/**", "/bin/**", "/sbin/**", "/lib/**", "/lib64/**"]}`), "swap")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	res, err := runWith(t, Options{Task: fixture(t, "secret-sensitive"), Source: runapi.SourcePolicy, Policy: pi,
		Agent: swapAgent, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.ReadFile(filepath.Join(dir, runapi.FileAgentStdout))
	if err != nil || res.ExitCode != 0 {
		stderr, _ := os.ReadFile(filepath.Join(dir, runapi.FileAgentStderr))
		t.Fatalf("agent exit %d: %q %v\n%s", res.ExitCode, out, err, stderr)
	}
	got := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if k, v, ok := strings.Cut(l, " "); ok {
			got[k] = v
		}
	}
	if got["open-key"] != "Permission_denied" || got["rename"] != "ok" || got["symlink"] != "ok" {
		t.Fatalf("the key was not refused before the swap, or the swap failed: the test proves nothing (agent output %q)", out)
	}
	if v := got["openat2-renamed"]; !strings.HasPrefix(v, "ok:") || v == "ok:0" {
		t.Fatalf("openat2 of the rule's file at its new name: %q, want it read (agent output %q)", v, out)
	}
	for _, k := range []string{"openat2-after", "open-after"} {
		if got[k] != "Permission_denied" {
			t.Errorf("%s of the key through the swapped rule path: %q, want Permission_denied", k, got[k])
		}
	}
}
