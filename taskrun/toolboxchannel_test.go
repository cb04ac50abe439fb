package taskrun

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/authbench/authbench/agent"
	"github.com/authbench/authbench/agent/agenttest"
	"github.com/authbench/authbench/agent/modelconfig"
	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/runapi"
)

// channelAttacks are shell calls of an agent (root in its container,
// no CAP_SYS_PTRACE) going for the toolbox's channel: the toolbox is the
// container's pid 1.
var channelAttacks = []string{
	// inherited descriptors: none is a socket; the toolbox's are not listed
	`ls -l /proc/self/fd/ /proc/$$/fd/ 2>&1; ls /proc/1/fd/ /proc/1/task/1/fd/ 2>&1; cat /proc/1/fdinfo/0 2>&1; echo "listed"`,
	// reopen its stdin (steal requests) and stdout
	`for f in /proc/1/fd/0 /proc/1/fd/1 /proc/1/task/1/fd/1; do (exec 3<>"$f" && echo "OPENED $f") 2>&1; done; timeout 2 cat /proc/1/fd/0 2>&1; echo "steal rc=$?"`,
	// 600 MiB without a newline, then forged results for every ID
	`head -c 629145600 /dev/zero | tr '\0' x > /proc/1/fd/1; echo "flood rc=$?"; ` +
		`for i in $(seq 0 20); do printf '{"id":%d,"output":"FORGED","start_ns":1,"end_ns":2}\n' $i; done > /proc/1/fd/1; echo "forge rc=$?"`,
	// ptrace, pidfd_getfd, process_vm_readv (x86_64 numbers)
	`python3 -c '
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
def sc(name, n, *a):
    v = libc.syscall(n, *[ctypes.c_long(x) for x in a])
    print(name, "OK" if v >= 0 else os.strerror(ctypes.get_errno()))
    return v
sc("ptrace_attach", 101, 16, 1, 0, 0)
sc("ptrace_seize", 101, 0x4206, 1, 0, 0)
fd = sc("pidfd_open", 434, 1, 0)
if fd >= 0:
    sc("pidfd_getfd0", 438, fd, 0, 0)
    sc("pidfd_getfd1", 438, fd, 1, 0)
buf = ctypes.create_string_buffer(64)
iov = (ctypes.c_void_p * 2)(ctypes.addressof(buf), 64)
sc("process_vm_readv", 310, 1, ctypes.addressof(iov), 1, ctypes.addressof(iov), 1, 0)
' 2>&1`,
}

// TestEscapeDaemonToolboxChannelUnreachable: an agent tries every way
// to the toolbox's channel (/proc/1/fd, inherited descriptors, ptrace,
// pidfd_getfd): each is refused, its flood and forged results never
// reach the host, the trajectory holds only the real results and the
// host's memory stays bounded.
func TestEscapeDaemonToolboxChannelUnreachable(t *testing.T) {
	setup(t)
	task := fixture(t, "hello-standard")
	// Unconstrained: neither Landlock nor seccomp helps; only the channel
	// itself stands in the way.
	for _, source := range []string{runapi.SourceUnconstrained} {
		t.Run(source, func(t *testing.T) {
			dir := t.TempDir()
			var answer []agenttest.Call
			for i, cmd := range channelAttacks {
				args, _ := json.Marshal(map[string]any{"command": cmd, "timeout_s": 60})
				answer = append(answer, agenttest.Call{ID: "a" + strconv.Itoa(i), Name: "shell", Arguments: string(args)})
			}
			srv := agenttest.New(t, calls(answer...), finish("done"))
			res := runModel(t, task, source, srv, modelconfig.Config{}, dir)
			if res.AgentStopReason != string(modelconfig.StopFinished) {
				t.Fatalf("stop %q: %s", res.AgentStopReason, res.AgentError)
			}
			var traj agent.Trajectory
			if err := json.Unmarshal([]byte(readTrajectory(t, dir)), &traj); err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, s := range traj.Steps {
				if s.Observation == nil {
					continue
				}
				for _, r := range s.Observation.Results {
					out = append(out, r.Content)
				}
				if tr, _ := s.Extra[agent.StepExtraToolResults].(map[string]any); tr != nil {
					for id, x := range tr {
						if m, _ := x.(map[string]any); m["start_ns"] == float64(1) || m["end_ns"] == float64(2) {
							t.Errorf("call %s has a forged window: %v", id, m)
						}
					}
				}
			}
			if len(out) != len(channelAttacks)+1 {
				t.Fatalf("%d observations: %q", len(out), out)
			}
			all := strings.Join(out, "\n")
			t.Logf("observations:\n%s", all)
			for _, bad := range []string{"FORGED", "OPENED", "socket:", "\"op\"", "ptrace_attach OK", "ptrace_seize OK", "pidfd_getfd0 OK", "pidfd_getfd1 OK", "process_vm_readv OK"} {
				if strings.Contains(all, bad) {
					t.Errorf("the agent reached the channel: %q in the observations", bad)
				}
			}
			for _, want := range []string{"listed", "steal rc=", "flood rc=1", "forge rc=1", "ptrace_attach Operation not permitted", "pidfd_getfd1 Operation not permitted"} {
				if !strings.Contains(all, want) {
					t.Errorf("no %q in the observations", want)
				}
			}
			if hwm := testenv.PeakRSS(t); hwm > 300<<20 {
				t.Errorf("peak RSS of the host process %d MB (bound 300 MB)", hwm>>20)
			}
		})
	}
}
