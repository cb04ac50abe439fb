package env

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
)

// The user namespace of a RUN step (docs/security.md, "Image builds"):
// the step's uids and gids 0..BuildIDCount-1 are the host's
// BuildHostID.. — root in the step is an unprivileged, unnamed id on the
// host, which owns nothing there. containers/storage keeps the step's
// files with those host ids; the exports map them back (buildids.go), so
// an exported rootfs is that of an unconfined build.
const (
	BuildHostID  = 1 << 30
	BuildIDCount = 65536
)

// buildIDMap is the --userns-uid-map and --userns-gid-map value.
var buildIDMap = "0:" + strconv.Itoa(BuildHostID) + ":" + strconv.Itoa(BuildIDCount)

// unsetPath stands for a runtime or network namespace a BuildSpec does
// not name: no such file.
const unsetPath = "/nonexistent/authbench-build-confinement-unset"

// confinedBuildArgs are buildah's flags that run each RUN step through
// runc (the runtime: buildRuntime's wrapper) in namespaces of its own:
// user (buildIDMap), mount, PID, IPC, UTS, cgroup, and the network
// namespace netns (the build's: only its loopback and the egress proxy).
// An empty runtime or netns fails the build (they name a path that is
// not there: buildah takes "ns:" for its default network, a bridge with
// a route out) instead of leaving the step unchecked or on that network.
func confinedBuildArgs(runtime, netns string, hosts []string) []string {
	if runtime == "" {
		runtime = unsetPath
	}
	if netns == "" {
		netns = unsetPath
	}
	args := []string{"--isolation", "oci", "--runtime", runtime,
		"--userns-uid-map", buildIDMap, "--userns-gid-map", buildIDMap,
		"--pid", "private", "--ipc", "private", "--uts", "private", "--cgroupns", "private",
		"--network", "ns:" + netns}
	for _, h := range hosts {
		args = append(args, "--add-host", h)
	}
	return args
}

// buildRuntimeScript is the OCI runtime buildah runs RUN steps with: runc
// (%[1]s) after two changes to the bundle's config.json (jq, %[2]s), and
// a check. The step's network namespace is the build's, owned by the
// host's user namespace, so the step's own user namespace may not mount
// sysfs: /sys is an empty read-only tmpfs instead, and the cgroup mount
// below it goes (runc on this cgroup v1+v2 hybrid wants none: DESIGN §9).
// A config without its own user or network namespace path is refused, so
// that no flag buildah drops runs a step as host root or on the host's
// network.
const buildRuntimeScript = `#!/bin/sh
# authbench's image-build runtime (env/buildconfine.go): runc, with the
# RUN step's /sys an empty read-only tmpfs and no cgroup mount.
set -eu
bundle=""
prev=""
for a in "$@"; do
	if [ "$prev" = "--bundle" ] || [ "$prev" = "-b" ]; then bundle="$a"; fi
	case "$a" in --bundle=*) bundle="${a#--bundle=}" ;; esac
	prev="$a"
done
if [ -n "$bundle" ]; then
	%[2]s -c '
	  if ([.linux.namespaces[] | select(.type == "user")] | length) != 1 then error("authbench build runtime: the step has no user namespace of its own")
	  elif ([.linux.namespaces[] | select(.type == "network" and (.path // "") != "")] | length) != 1 then error("authbench build runtime: the step does not join the build network namespace")
	  else .mounts |= (map(select(.type != "cgroup")) | map(if .type == "sysfs" then {destination: .destination, type: "tmpfs", source: "tmpfs", options: ["nosuid", "noexec", "nodev", "ro", "size=4k"]} else . end))
	  end' "$bundle/config.json" > "$bundle/config.json.authbench"
	mv "$bundle/config.json.authbench" "$bundle/config.json"
fi
exec %[1]s "$@"
`

// buildRuntime writes the build runtime (buildRuntimeScript) under the
// store's buildah directory, named by its content, and returns its path.
func buildRuntime(s Store) (string, error) {
	runc, err := exec.LookPath("runc")
	if err != nil {
		return "", fmt.Errorf("build runtime: RUN steps run in runc: %w", err)
	}
	jq, err := exec.LookPath("jq")
	if err != nil {
		return "", fmt.Errorf("build runtime: jq edits each RUN step's config: %w", err)
	}
	script := fmt.Sprintf(buildRuntimeScript, shellQuote(runc), shellQuote(jq))
	sum := sha256.Sum256([]byte(script))
	dir := filepath.Join(s.Dir, "buildah", "runtime")
	path := filepath.Join(dir, "runc-"+hex.EncodeToString(sum[:])[:16])
	if data, err := os.ReadFile(path); err == nil && string(data) == script {
		return path, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("build runtime: %w", err)
	}
	f, err := os.CreateTemp(dir, ".runc-")
	if err != nil {
		return "", fmt.Errorf("build runtime: %w", err)
	}
	defer os.Remove(f.Name())
	_, err = f.WriteString(script)
	if err == nil {
		err = f.Chmod(0o755)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		return "", fmt.Errorf("build runtime: %w", err)
	}
	return path, nil
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	out := "'"
	for _, r := range s {
		if r == '\'' {
			out += `'\''`
			continue
		}
		out += string(r)
	}
	return out + "'"
}
