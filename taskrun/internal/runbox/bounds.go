package runbox

import (
	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tasks"
)

// TaskBounds are the bounds every container of a run of t gets, as the
// run record keeps them: the task's cpus and memory, the defaults for
// what it leaves unset (env.DefaultBounds), and those this host cannot
// enforce (a missing cgroup controller: said, never silent). Its
// containers get them through env.TaskRunConfig and env.RuntimeSpec.
func TaskBounds(t *tasks.Task) *runapi.ContainerBounds {
	e := t.Config.Environment
	b, defaulted := env.Bounds{CPUs: e.CPUs, MemoryMB: e.MemoryMB}.WithDefaults()
	unenforced := env.Unenforced(env.HostControllers())
	return &runapi.ContainerBounds{CPUs: b.CPUs, MemoryMB: b.MemoryMB, Pids: b.Pids, Defaulted: defaulted, Unenforced: unenforced}
}
