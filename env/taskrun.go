package env

import (
	"regexp"
	"strings"

	"github.com/authbench/authbench/env/imagemeta"
	"github.com/authbench/authbench/tasks"
)

// TaskRunConfig returns the part of a RunConfig that comes from a task
// and its built image: the image's environment and working directory, the
// task's network and resource settings ([environment] allow_internet,
// cpus, memory: DefaultBounds for those it leaves unset) and the host's
// cgroup controllers (HostControllers, probed once). The caller adds
// Rootfs, Args, the user, the authbench binary and policy, and TestsDir
// when running a verifier. Pure but for that probe.
func TaskRunConfig(t *tasks.Task, img *imagemeta.TaskImage) RunConfig {
	e := t.Config.Environment
	c := RunConfig{
		Env:           MergeEnv(img.Config.Env, nil),
		Cwd:           img.Config.WorkingDir,
		Hostname:      hostname(t.Name),
		AllowInternet: e.AllowInternet,
		CPUs:          e.CPUs,
		MemoryMB:      e.MemoryMB,
		Controllers:   HostControllers(),
	}
	return c
}

var badHostChars = regexp.MustCompile(`[^a-z0-9-]+`)

// hostname makes a valid host name (RFC 1123 label) of a task name.
func hostname(task string) string {
	h := strings.Trim(badHostChars.ReplaceAllString(strings.ToLower(task), "-"), "-")
	if len(h) > 63 {
		h = strings.TrimRight(h[:63], "-")
	}
	if h == "" {
		h = "task"
	}
	return h
}
