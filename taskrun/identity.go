package taskrun

import (
	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/taskrun/internal/runbox"
	"github.com/authbench/authbench/tasks"
)

// Identity is who a task's agent runs as, resolved in the run's rootfs
// the way a container runtime resolves an image's USER: User (what was
// asked for: task.toml's [agent] user, else the image's USER, else
// "root"), UID, GID, Groups (the primary gid and every group of
// /etc/group that lists the user) and Home (from /etc/passwd, "/" when
// the user has no entry).
type Identity = runbox.Identity

// UnknownUserError says that the agent's user (or group) is not in the
// image's /etc/passwd (or /etc/group).
type UnknownUserError = runbox.UnknownUserError

// ResolveAgent resolves the task's agent user through the rootfs's
// /etc/passwd and /etc/group, read with rootfs as the root (a symlink
// cannot lead outside it).
func ResolveAgent(t *tasks.Task, img *env.TaskImage, rootfs string) (Identity, error) {
	return runbox.ResolveAgent(t, img, rootfs)
}
