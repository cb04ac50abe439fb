package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// ExitInitFailure is sandbox-init's exit status when it fails before exec.
const ExitInitFailure = 126

// RunInit is the body of sandbox-init: wait at the gate for the spec,
// prepare the process and exec. It returns only on failure, after the
// error has been sent to the parent; the caller exits ExitInitFailure.
func RunInit() error {
	runtime.LockOSThread()
	errPipe := os.NewFile(errorFD, "sandbox-error")
	err := initAndExec()
	fmt.Fprintf(errPipe, "sandbox-init: %v", err)
	errPipe.Close()
	return err
}

func initAndExec() error {
	unix.CloseOnExec(errorFD)
	specFile := os.NewFile(specFD, "sandbox-spec")
	var spec Spec
	if err := json.NewDecoder(specFile).Decode(&spec); err != nil {
		return fmt.Errorf("read spec: %w", err)
	}
	specFile.Close()
	if spec.Dir != "" {
		if err := os.Chdir(spec.Dir); err != nil {
			return fmt.Errorf("chdir: %w", err)
		}
	}
	if err := unix.Exec(spec.Path, spec.Args, spec.Env); err != nil {
		return fmt.Errorf("exec %s: %w", spec.Path, err)
	}
	return nil
}
