package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"

	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/capability"
)

// ExitInitFailure is sandbox-init's exit status when it fails before exec.
const ExitInitFailure = 126

// RunInit is the body of sandbox-init: wait at the gate for the spec,
// prepare the process and exec. It returns only on failure, after the
// error has been sent to the parent as one JSON InitError; the caller
// exits ExitInitFailure.
//
// sandbox-init, and the command it becomes, die with the process that
// launched it: Start asks for that, and sandbox-init asks again itself for
// launchers that do not, such as runc, which starts it as a container's
// init (when that init dies, the kernel kills the whole container).
func RunInit() error {
	runtime.LockOSThread()
	if len(os.Args) > 2 && os.Args[2] == openat2AgentArg {
		// Its failures close the listener: the tree's openat2 then
		// answers ENOSYS (there is nobody to report them to).
		return runOpenat2Agent()
	}
	errPipe := os.NewFile(errorFD, "sandbox-error")
	var ierr *InitError
	if err := dieWithParent(); err != nil {
		ierr = initError(StageSpec, "", err)
	} else {
		ierr = initAndExec()
	}
	_, _ = errPipe.Write(encodeInitError(ierr))
	errPipe.Close()
	return ierr
}

// dieWithParent sets the parent-death signal to SIGKILL. Inside a PID
// namespace, where a launcher that died first cannot be seen, it closes
// the gate instead, and reading the spec fails.
func dieWithParent() error {
	return setDeathSignal(int(unix.SIGKILL), os.Getppid())
}

func initAndExec() *InitError {
	unix.CloseOnExec(errorFD)
	specFile := os.NewFile(specFD, "sandbox-spec")
	spec, err := decodeSpec(specFile)
	if err != nil {
		return &InitError{Stage: StageSpec, Msg: err.Error()}
	}
	specFile.Close()
	return becomeCommand(spec)
}

// decodeSpec reads the spec sent through the gate. A field this
// sandbox-init does not know fails it: a launcher newer than the
// authbench-sandbox-init next to it may be asking for a restriction
// that would otherwise be silently left out.
func decodeSpec(r io.Reader) (*Launch, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var spec Launch
	if err := dec.Decode(&spec); err != nil {
		return nil, fmt.Errorf("read spec (is %s from the same build as authbench?): %w", InitBinaryName, err)
	}
	return &spec, nil
}

// Exec applies spec's restrictions to the calling process and replaces
// it with the command: the single-process form of Start and Release, for
// callers that have nothing to do between the restrictions and the exec
// (no tracer to register the pid with). It returns only on failure, with
// an *InitError.
func Exec(spec Launch) error {
	runtime.LockOSThread() // never unlocked: this thread execs
	return becomeCommand(&spec)
}

// becomeCommand restricts the process and execs the command (see doc.go
// for the order of the steps). It returns only on failure.
func becomeCommand(spec *Launch) *InitError {
	if err := restrict(spec); err != nil {
		return err
	}
	if spec.WaitTree {
		return reapTree(spec)
	}
	return execProgram(spec)
}

// restrict applies the spec's restrictions to this process, in an order
// where each step still has what it needs and every check on behalf of
// the command is made as the command: descriptors first; hidden paths
// (mounts, while privileged and before Landlock forbids them); Landlock while
// still root, so that rule paths only root can open can be added; the
// capabilities and then the identity; only then the working directory
// (entered as the final identity, through Landlock); no_new_privs;
// seccomp last, so the filter only has to allow what remains (the exec,
// which also looks the program up).
func restrict(spec *Launch) *InitError {
	granted, ierr := checkSpec(spec)
	if ierr != nil {
		return ierr
	}
	if spec.CloseFDs {
		if err := closeInheritedFDs(); err != nil {
			return initError(StageSpec, "", err)
		}
	}
	if err := hidePaths(spec.HidePaths); err != nil {
		return err
	}
	abi := KernelLandlockABI()
	if spec.LandlockABI > 0 && spec.LandlockABI < abi {
		abi = spec.LandlockABI
	}
	apply, err := landlockStep(spec.Plan, abi, spec.AllowUnenforced)
	if err != nil {
		return initError(StageLandlock, "", err)
	}
	if unixConnectMechanism(spec.RefuseUnixConnect, abi, apply, spec.Seccomp != nil) == UnixConnectSeccomp {
		if spec.Seccomp, err = withUnixSocketsRefused(spec.Seccomp); err != nil {
			return initError(StageSeccomp, "", err)
		}
	}
	// The ruleset is built once, here, before the tree exists: sandbox-init
	// enforces it and the openat2 agent gets the very same descriptor.
	rulesetFD, rulesetFlags := -1, uint32(0)
	if apply {
		if rulesetFD, rulesetFlags, err = buildRuleset(withoutDeviceNodes(spec.Plan, granted), abi); err != nil {
			return initError(StageLandlock, "", err)
		}
		defer closeRuleset(rulesetFD)
	}
	// The openat2 agent starts before any restriction and applies them
	// itself, its main thread staying outside Landlock (see
	// runOpenat2Agent).
	// A process already under a seccomp filter (a nested exec inside a
	// confined tree) may not install a listener: there the filter goes in
	// without one, and the kernel answers its notifying calls (openat2)
	// with ENOSYS.
	var agent *os.File
	if spec.Seccomp != nil && spec.Seccomp.Notifies() && !underSeccompFilter() {
		if agent, err = startOpenat2Agent(spec, rulesetFD, rulesetFlags); err != nil {
			return initError(StageSeccomp, "", err)
		}
		defer agent.Close()
	}
	// sandbox-init's locked thread execs the command; a reaper stays and
	// is confined whole.
	if err := restrictToRuleset(rulesetFD, rulesetFlags, spec.WaitTree); err != nil {
		return initError(StageLandlock, "", err)
	}
	if spec.DropCapabilities {
		if err := limitCapabilities(granted); err != nil {
			return initError(StageCapabilities, "", err)
		}
	}
	if spec.UID != nil {
		if err := setIdentity(*spec.UID, *spec.GID, spec.Groups); err != nil {
			return initError(StageIdentity, "", err)
		}
	}
	if spec.DropCapabilities {
		if err := finishCapabilities(granted); err != nil {
			return initError(StageCapabilities, "", err)
		}
	}
	if spec.Dir != "" {
		if err := unix.Chdir(spec.Dir); err != nil {
			return initError(StageChdir, spec.Dir, err)
		}
	}
	if spec.NoNewPrivs || spec.Plan != nil || spec.Seccomp != nil {
		if err := setNoNewPrivs(); err != nil {
			return initError(StageNoNewPrivs, "", err)
		}
	}
	switch {
	case agent != nil:
		if err := handOverListener(agent, spec.Seccomp); err != nil {
			return initError(StageSeccomp, "", err)
		}
	case spec.Seccomp != nil:
		if err := installFilter(spec.Seccomp); err != nil {
			return initError(StageSeccomp, "", err)
		}
	}
	return nil
}

// checkSpec refuses a spec whose fields do not go together and returns
// the capabilities it grants.
func checkSpec(spec *Launch) ([]int, *InitError) {
	if (spec.UID == nil) != (spec.GID == nil) {
		return nil, &InitError{Stage: StageSpec, Msg: "uid and gid must be given together"}
	}
	if len(spec.Groups) > 0 && spec.UID == nil {
		return nil, &InitError{Stage: StageSpec, Msg: "supplementary groups need a uid and gid"}
	}
	if spec.Path == "" {
		return nil, &InitError{Stage: StageSpec, Msg: "no program to run"}
	}
	granted, err := capability.Numbers(spec.Capabilities)
	if err != nil {
		return nil, initError(StageSpec, "", err)
	}
	if spec.ReportExit && !spec.WaitTree {
		return nil, &InitError{Stage: StageSpec, Msg: "report_exit needs wait_tree"}
	}
	if len(granted) > 0 && !spec.DropCapabilities {
		return nil, &InitError{Stage: StageSpec, Msg: "capabilities are granted only with drop_capabilities"}
	}
	return granted, nil
}

// closeRuleset closes a ruleset descriptor (fd -1: none).
func closeRuleset(fd int) {
	if fd >= 0 {
		unix.Close(fd)
	}
}

// underSeccompFilter reports whether this process runs under a seccomp
// filter already.
func underSeccompFilter() bool {
	mode, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0)
	return err != nil || mode == unix.SECCOMP_MODE_FILTER
}

// execError explains a failed exec; a refusal by Landlock is the common
// case of a policy without an execute rule for the command.
func execError(spec *Launch, stage InitStage, path string, err error) *InitError {
	ie := initError(stage, path, err)
	if errors.Is(err, unix.EACCES) && spec.Plan != nil {
		ie.Hint = "the policy has no execute rule for it, or for its interpreter"
	}
	return ie
}
