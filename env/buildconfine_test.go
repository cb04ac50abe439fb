package env

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuildRuntimeEditsAndRefuses: the build runtime turns a step's
// sysfs into an empty read-only tmpfs and drops its cgroup mount, and
// refuses (before runc) a config whose step has no user namespace of its
// own or joins no network namespace — what a dropped buildah flag would
// give.
func TestBuildRuntimeEditsAndRefuses(t *testing.T) {
	need(t, "jq", haveBin("jq"))
	need(t, "runc", haveBin("runc"))
	rt, err := buildRuntime(Store{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	mounts := `[{"destination":"/proc","type":"proc","source":"proc"},{"destination":"/sys","type":"sysfs","source":"sysfs","options":["ro"]},{"destination":"/sys/fs/cgroup","type":"cgroup","source":"cgroup"}]`
	run := func(namespaces string) (map[string]any, string, error) {
		dir := t.TempDir()
		cfg := `{"mounts":` + mounts + `,"linux":{"namespaces":` + namespaces + `}}`
		os.WriteFile(filepath.Join(dir, "config.json"), []byte(cfg), 0o644)
		// "state" of no container: runc fails after the edit, nothing runs.
		out, err := exec.Command(rt, "--bundle", dir, "state", "authbench-no-such-container").CombinedOutput()
		data, _ := os.ReadFile(filepath.Join(dir, "config.json"))
		var got map[string]any
		json.Unmarshal(data, &got)
		return got, string(out), err
	}
	got, out, _ := run(`[{"type":"user"},{"type":"network","path":"/proc/1/fd/3"},{"type":"pid"}]`)
	data, _ := json.Marshal(got["mounts"])
	if s := string(data); strings.Contains(s, "sysfs") || strings.Contains(s, "cgroup") || !strings.Contains(s, `"type":"tmpfs"`) {
		t.Errorf("mounts after the runtime: %s (%s)", s, out)
	}
	for _, bad := range []string{
		`[{"type":"network","path":"/proc/1/fd/3"},{"type":"pid"}]`,
		`[{"type":"user"},{"type":"network"},{"type":"pid"}]`,
		`[{"type":"user"},{"type":"pid"}]`,
	} {
		got, out, err := run(bad)
		data, _ := json.Marshal(got["mounts"])
		if err == nil || !strings.Contains(out, "authbench build runtime") || !strings.Contains(string(data), "sysfs") {
			t.Errorf("namespaces %s: err=%v, output %q, config kept: %v", bad, err, out, strings.Contains(string(data), "sysfs"))
		}
	}
}
