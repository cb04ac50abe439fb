package env

// RuncPid is the pid of the `runc run` process of the container: the
// parent of the container's init (runc creates it with CLONE_PARENT), by
// which a caller can tell that a pid still names that init.
func (c *Container) RuncPid() int { return c.cmd.Process.Pid }
