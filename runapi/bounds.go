package runapi

// ContainerBounds are the cgroup bounds each container of a task run got
// (the agent's, each verifier's, each compose service's, a toolbox's):
// the task's [environment] cpus and memory_mb, or the defaults, and the
// default pids limit.
type ContainerBounds struct {
	CPUs     float64 `json:"cpus"`
	MemoryMB int64   `json:"memory_mb"`
	Pids     int64   `json:"pids"`
	// Defaulted names the bounds the task did not set ("cpus",
	// "memory_mb", "pids"), which got the documented defaults.
	Defaulted []string `json:"defaulted,omitempty"`
	// Unenforced names the bounds this host cannot enforce: their cgroup
	// controller is missing, so the containers ran without them.
	Unenforced []string `json:"unenforced,omitempty"`
}
