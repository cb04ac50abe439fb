package taskrun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
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
	res, err := runWith(t, Options{Task: fixture(t, "hello-standard"), Source: runapi.SourcePolicy, Policy: pi,
		Agent: readOnlyTruncAgent, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.ReadFile(filepath.Join(dir, runapi.FileAgentStdout))
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

// openat2Agent calls openat2 (437 on x86_64 and arm64) through ctypes,
// as OpenClaw's lock code and Rust's cap-std do, with no fallback: a
// RESOLVE_BENEATH read of /app/input.txt, then O_RDONLY|O_TRUNC of it.
// It prints the outcome and the file's size before and after each.
const openat2Agent = `cmd:python3 -c '
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
class How(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]
d = os.open("/app", os.O_RDONLY | os.O_DIRECTORY)
for name, flags in (("beneath", os.O_RDONLY), ("trunc", os.O_RDONLY | os.O_TRUNC)):
    before = os.stat("/app/input.txt").st_size
    how = How(flags | os.O_CLOEXEC, 0, 0x08)
    fd = libc.syscall(437, d, b"input.txt", ctypes.byref(how), ctypes.sizeof(how))
    if fd >= 0:
        r = "ok:" + str(len(os.read(fd, 1 << 20)))
        os.close(fd)
    else:
        r = os.strerror(ctypes.get_errno()).replace(" ", "_")
    print(name, r, before, os.stat("/app/input.txt").st_size)
'`

// TestOpenat2InTaskContainer: under the container profile, a program that
// uses openat2(RESOLVE_BENEATH) without a fallback reads a task file
// (before the openat2 agent, every openat2 answered ENOSYS), and an
// openat2 O_RDONLY|O_TRUNC of the same file, still in the overlay's lower
// layer, is refused (EACCES) with its size unchanged.
func TestOpenat2InTaskContainer(t *testing.T) {
	setup(t)
	pi, err := policy.ParsePolicy([]byte(`{"read": ["/**"], "write": ["/tmp/**"], "execute": ["/**"]}`), "read-only")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	res, err := runWith(t, Options{Task: fixture(t, "hello-standard"), Source: runapi.SourcePolicy, Policy: pi,
		Agent: openat2Agent, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.ReadFile(filepath.Join(dir, runapi.FileAgentStdout))
	if err != nil || res.ExitCode != 0 {
		stderr, _ := os.ReadFile(filepath.Join(dir, runapi.FileAgentStderr))
		t.Fatalf("agent exit %d: %q %v\n%s", res.ExitCode, out, err, stderr)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 {
		t.Fatalf("agent output: %q", out)
	}
	beneath, trunc := strings.Fields(lines[0]), strings.Fields(lines[1])
	if len(beneath) != 4 || beneath[1] != "ok:"+beneath[2] || beneath[2] == "0" {
		t.Errorf("%s: want the whole file read through openat2(RESOLVE_BENEATH)", lines[0])
	}
	if len(trunc) != 4 || trunc[1] != "Permission_denied" || trunc[2] != trunc[3] {
		t.Errorf("%s: want refused with the size unchanged", lines[1])
	}
}
