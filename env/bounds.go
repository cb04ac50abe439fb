package env

import "slices"

// Bounds are the cgroup limits of one container: CPUs (a CFS quota of
// that many CPUs), memory in MiB (the hard limit: beyond it the kernel's
// OOM killer ends a process of the container) and pids (processes and
// threads together: beyond it fork and clone fail with EAGAIN).
type Bounds struct {
	CPUs     float64 `json:"cpus"`
	MemoryMB int64   `json:"memory_mb"`
	Pids     int64   `json:"pids"`
}

// DefaultBounds are the bounds of a container whose task sets none
// (task.toml's [environment] cpus and memory_mb / memory, in Harbor's
// meaning: the CPU count and the RAM limit; Harbor injects no defaults,
// leaving them to the provider, which we are). CPUs and memory are
// Harbor's task template (`cpus = 1`, `memory_mb = 2048`); pids is
// Podman's default pids limit: no task sets it (Harbor has no such key),
// and it is what stops a fork bomb.
var DefaultBounds = Bounds{CPUs: 1, MemoryMB: 2048, Pids: 2048}

// Names of the bounds, as the run record lists them.
const (
	BoundCPUs   = "cpus"
	BoundMemory = "memory_mb"
	BoundPids   = "pids"
)

// controllerOf is the cgroup controller that enforces each bound.
var controllerOf = map[string]string{BoundCPUs: "cpu", BoundMemory: "memory", BoundPids: "pids"}

// WithDefaults returns b with DefaultBounds in place of each bound it
// leaves unset (0), and the names of those bounds. Pure.
func (b Bounds) WithDefaults() (Bounds, []string) {
	var defaulted []string
	if b.CPUs <= 0 {
		b.CPUs, defaulted = DefaultBounds.CPUs, append(defaulted, BoundCPUs)
	}
	if b.MemoryMB <= 0 {
		b.MemoryMB, defaulted = DefaultBounds.MemoryMB, append(defaulted, BoundMemory)
	}
	if b.Pids <= 0 {
		b.Pids, defaulted = DefaultBounds.Pids, append(defaulted, BoundPids)
	}
	return b, defaulted
}

// Unenforced names the bounds that ctrls cannot enforce (their cgroup
// controller is missing); nil ctrls (not probed) names none. Pure.
func Unenforced(ctrls *Controllers) []string {
	if ctrls == nil {
		return nil
	}
	var out []string
	for _, name := range []string{BoundCPUs, BoundMemory, BoundPids} {
		if !ctrls.Have(controllerOf[name]) {
			out = append(out, name)
		}
	}
	return out
}

// without returns b with the named bounds cleared (0: not given to runc).
func (b Bounds) without(names []string) Bounds {
	if slices.Contains(names, BoundCPUs) {
		b.CPUs = 0
	}
	if slices.Contains(names, BoundMemory) {
		b.MemoryMB = 0
	}
	if slices.Contains(names, BoundPids) {
		b.Pids = 0
	}
	return b
}
