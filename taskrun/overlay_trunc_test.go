package taskrun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/policy"
)

// readOnlyTruncAgent opens files read-only with O_TRUNC (and with
// O_ACCMODE 3) and prints, per attempt, the path, the outcome and the
// file's size before and after.
const readOnlyTruncAgent = `cmd:python3 -c '
import os
for p in ("/app/input.txt", "/etc/passwd"):
    for mode in (os.O_RDONLY, 3):
        before = os.stat(p).st_size
        try:
            os.close(os.open(p, mode | os.O_TRUNC))
            r = "ok"
        except OSError as e:
            r = os.strerror(e.errno)
        print(p, mode, r.replace(" ", "_"), before, os.stat(p).st_size)
'`

// TestReadOnlyTruncateLeavesTaskFiles: in a task run under a read-only
// policy (read /**, write /tmp/**), a read-only open with O_TRUNC of a
// file of the image — still in the overlay's lower layer — is refused and
// leaves its size as it was (overlayfs would otherwise copy it up
// emptied before Landlock's truncate check refuses).
func TestReadOnlyTruncateLeavesTaskFiles(t *testing.T) {
	setup(t)
	pi, err := policy.ParsePolicy([]byte(`{"read": ["/**"], "write": ["/tmp/**"], "execute": ["/**"]}`), "read-only")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	res, err := runWith(t, Options{Task: fixture(t, "hello-standard"), Source: SourcePolicy, Policy: pi,
		Agent: readOnlyTruncAgent, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.ReadFile(filepath.Join(dir, AgentStdoutFile))
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("agent exit %d: %q %v", res.ExitCode, out, err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 4 {
		t.Fatalf("agent output: %q", out)
	}
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) != 5 || f[2] != "Permission_denied" || f[3] != f[4] || f[3] == "0" {
			t.Errorf("%s: want refused with the size unchanged (path, access mode, outcome, size before, after)", l)
		}
	}
}
