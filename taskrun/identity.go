package taskrun

import (
	"github.com/authbench/authbench/env/imagemeta"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/taskrun/internal/runbox"
	"github.com/authbench/authbench/tasks"
)

// UnknownUserError says that the agent's user (or group) is not in the
// image's /etc/passwd (or /etc/group).
type UnknownUserError = runbox.UnknownUserError

// ResolveAgent resolves the task's agent user through the rootfs's
// /etc/passwd and /etc/group, read with rootfs as the root (a symlink
// cannot lead outside it).
func ResolveAgent(t *tasks.Task, img *imagemeta.TaskImage, rootfs string) (runapi.Identity, error) {
	return runbox.ResolveAgent(t, img, rootfs)
}
