package daemon

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/runapi"
)

// TestRunRecordsMmapExecs: a library the plan may read but not execute,
// loaded with LD_PRELOAD into an allowed program, is in the run record's
// mmap_execs (with its identity) next to its exec_via_mmap denial; the
// system libraries the plan lets run are not.
func TestRunRecordsMmapExecs(t *testing.T) {
	tr := testTracer(t)
	testenv.NeedTools(t, "gcc")
	dir := fileTree(t, "data")
	src := filepath.Join(dir, "pre.c")
	if err := os.WriteFile(src, []byte("int authbench_preloaded(void) { return 42; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	so := filepath.Join(dir, "libpre.so")
	if out, err := exec.Command("gcc", "-shared", "-fPIC", "-o", so, src).CombinedOutput(); err != nil {
		t.Fatalf("compile: %v\n%s", err, out)
	}
	data := filepath.Join(dir, "data")
	pol, _ := json.Marshal(map[string][]string{"read": {data, so}, "write": {},
		"execute": {"/usr/bin/cat", "/usr/bin/sh", "/usr/bin/dash", "/usr/lib/**", "/lib/**"}})
	d := startTestDaemon(t, Config{Self: testBinary, Tracer: tr}, "")
	run := submitAndWait(t, d.client, &runapi.RunRequest{Exec: &runapi.ExecRequest{Command: []string{"/bin/sh", "-c", "LD_PRELOAD=" + so + " cat " + data}, Policy: pol, Trace: true, UID: uid(65534), GID: uid(65534)}})
	if run.State != runapi.StateSucceeded {
		t.Fatalf("run %s: %s", run.State, run.Error)
	}
	if len(run.MmapExecs) != 1 {
		t.Fatalf("mmap_execs %+v, want the preloaded library only", run.MmapExecs)
	}
	m := run.MmapExecs[0]
	var st syscall.Stat_t
	if err := syscall.Stat(so, &st); err != nil {
		t.Fatal(err)
	}
	if m.Path != so || m.Comm != "cat" || m.Syscall != "mmap" || m.Ino != st.Ino {
		t.Errorf("mmap exec %+v, want %s mapped by cat (ino %d)", m, so, st.Ino)
	}
	found := false
	for _, dn := range run.Denials {
		found = found || (dn.Op == audit.OpExecViaMmap && dn.Path == so)
	}
	if !found {
		t.Errorf("denials %+v lack the exec_via_mmap of %s", run.Denials, so)
	}
}
