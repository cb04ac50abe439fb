package container

import "fmt"

// Status is where a container is in its life, as runc names the states
// (runc's creating and paused are not used: Start returns once runc was
// started, and nothing pauses a container).
type Status int

// The statuses of a container, in the order of its life.
const (
	// Created: runc was started; its init exists, or soon will, and a
	// gated init waits at the sandbox-init gate.
	Created Status = iota
	// Running: the init was released (a gated container) or runs
	// (an ungated one, once its pid is known).
	Running
	// Stopped: the init has ended (exited, stopped or killed).
	Stopped
	// Destroyed: the container was deleted and its bundle removed.
	Destroyed
)

var statusNames = [...]string{Created: "created", Running: "running", Stopped: "stopped", Destroyed: "destroyed"}

// String is the status's name.
func (s Status) String() string {
	if s < 0 || int(s) >= len(statusNames) {
		return fmt.Sprintf("status(%d)", int(s))
	}
	return statusNames[s]
}

// transitions are the statuses each status may become: the life only
// goes forward, and a created container may end before it ran.
var transitions = map[Status][]Status{
	Created: {Running, Stopped},
	Running: {Stopped},
	Stopped: {Destroyed},
}

// CanBecome reports whether a container in status s may move to next.
func (s Status) CanBecome(next Status) bool {
	for _, to := range transitions[s] {
		if to == next {
			return true
		}
	}
	return false
}

// StatusError is an operation refused in a container's status (for
// example releasing a container twice, or one already stopped).
type StatusError struct {
	ID     string
	Op     string
	Status Status
}

// Error says what was refused, and why.
func (e *StatusError) Error() string {
	return fmt.Sprintf("container %s: %s: the container is %s", e.ID, e.Op, e.Status)
}
