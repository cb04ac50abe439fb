package daemon

import (
	"sync"

	"github.com/authbench/authbench/sandbox"
)

// noIOUringProfile allows every system call but io_uring's, which fail
// with ENOSYS as on a kernel without io_uring: a traced tree's file
// accesses then go through the system calls the tracer sees.
const noIOUringProfile = `{
  "defaultAction": "SCMP_ACT_ALLOW",
  "syscalls": [{
    "names": ["io_uring_setup", "io_uring_enter", "io_uring_register"],
    "action": "SCMP_ACT_ERRNO",
    "errnoRet": 38,
    "comment": "ENOSYS: io_uring operations are invisible to the tracer"
  }]
}`

var noIOUring = sync.OnceValues(func() (*sandbox.Filter, error) {
	prof, err := sandbox.ParseProfile([]byte(noIOUringProfile), "no-io_uring profile")
	if err != nil {
		return nil, err
	}
	return sandbox.CompileProfile(prof, sandbox.CompileOptions{})
})

// noIOUringFilter is the seccomp filter of a traced run that has none.
func noIOUringFilter() (*sandbox.Filter, error) { return noIOUring() }
