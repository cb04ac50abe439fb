package broker

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"time"
)

// Where the program and the socket are inside an agent's container: the
// host binds a directory of its own, read-only, at ContainerDir.
const (
	ContainerDir = "/.authbench/bin"
	ProgramName  = "request-permission"
	ProgramPath  = ContainerDir + "/" + ProgramName
	SocketName   = "request.sock"
	SocketPath   = ContainerDir + "/" + SocketName
)

// Bounds of the channel.
const (
	// MaxMessageBytes bounds one request datagram (its reason is cut to
	// permreq.MaxReasonBytes when it is recorded).
	MaxMessageBytes = 16 << 10
	// MaxCommandArgs bounds a command's argument count.
	MaxCommandArgs = 256
	// IOTimeout bounds reading a request and writing each answer.
	IOTimeout = 2 * time.Second
	// MaxRunning bounds the granted commands that run at once.
	MaxRunning = 4
)

// Exit statuses of the program.
const (
	// ExitRefused: the request was refused, invalid or over the limit.
	ExitRefused = 3
	// ExitUsage: the program was called wrongly, or the channel failed.
	ExitUsage = 2
)

// Message is one request as it travels the socket.
type Message struct {
	Access string `json:"access"`
	Path   string `json:"path"`
	Reason string `json:"reason"`
	// Command, when set, is run by the host under π and the grants so
	// far if the request is granted; its standard descriptors are the
	// three sent with the message.
	Command []string `json:"command,omitempty"`
	// Dir is the caller's working directory (the command's).
	Dir string `json:"dir,omitempty"`
}

// Reply is one answer: first the decision, then, for a granted request
// with a command, the command's end (Exited set).
type Reply struct {
	Decision string   `json:"decision"`
	Why      string   `json:"why"`
	Rules    []string `json:"rules,omitempty"`
	// Exited: the command ran and ended with Status (as a shell reports
	// it); Error says why it could not run.
	Exited bool   `json:"exited,omitempty"`
	Status int    `json:"status,omitempty"`
	Error  string `json:"error,omitempty"`
}

// DecodeMessage decodes and checks one datagram strictly: one JSON
// object, no unknown fields, a command within MaxCommandArgs whose
// program is named, an absolute working directory.
func DecodeMessage(b []byte) (Message, error) {
	var m Message
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return Message{}, fmt.Errorf("malformed request (want one JSON object of access, path, reason, command, dir): %w", err)
	}
	if dec.More() {
		return Message{}, errors.New("malformed request: data after the JSON object")
	}
	if len(m.Command) > MaxCommandArgs {
		return Message{}, fmt.Errorf("command of %d arguments: at most %d", len(m.Command), MaxCommandArgs)
	}
	if len(m.Command) > 0 && m.Command[0] == "" {
		return Message{}, errors.New("command with an empty program name")
	}
	for _, a := range m.Command {
		if bytes.IndexByte([]byte(a), 0) >= 0 {
			return Message{}, errors.New("command argument holds a NUL byte")
		}
	}
	if m.Dir != "" && (!path.IsAbs(m.Dir) || bytes.IndexByte([]byte(m.Dir), 0) >= 0) {
		return Message{}, fmt.Errorf("working directory %q is not an absolute path", m.Dir)
	}
	return m, nil
}
