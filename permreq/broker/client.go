package broker

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// Usage is the program's usage text.
const Usage = `usage: request-permission ACCESS PATH REASON [-- COMMAND [ARG...]]

Ask for one more permission when the security policy denies an access the
task needs. ACCESS is read, write or execute; PATH is absolute (a
directory's whole tree with a trailing /**; no other wildcards); REASON
says why the task needs it. A grant never widens a process that runs
already: name a COMMAND, and if the request is granted it runs as a new
process under the policy and every grant so far, with this program's
standard input, output and error, and this program exits with its status.
Exit status 3: refused (the reason is on standard error); 2: misuse.
Requests are limited and recorded.
`

// SocketEnv names the socket when it is not at SocketPath (a bare-host
// exec, whose tree has no /.authbench).
const SocketEnv = "AUTHBENCH_REQUEST_SOCKET"

// Socket is the socket the program asks on: $AUTHBENCH_REQUEST_SOCKET,
// else SocketPath.
func Socket() string {
	if s := os.Getenv(SocketEnv); s != "" {
		return s
	}
	return SocketPath
}

// IsProgram reports whether argv0 names the program (the authbench
// binary run through the ProgramName symlink).
func IsProgram(argv0 string) bool { return filepath.Base(argv0) == ProgramName }

// Main runs the program with args (after argv[0]) against the socket at
// sock and returns its exit status; it writes its answer to stderr.
func Main(sock string, args []string, stderr io.Writer) int {
	m, err := parseArgs(args)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n\n%s", ProgramName, err, Usage)
		return ExitUsage
	}
	if len(m.Command) > 0 {
		if m.Dir, err = os.Getwd(); err != nil {
			m.Dir = ""
		}
	}
	first, conn, err := Ask(sock, m)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", ProgramName, err)
		return ExitUsage
	}
	defer conn.Close()
	fmt.Fprintf(stderr, "%s: %s: %s\n", ProgramName, first.Decision, first.Why)
	if first.Decision != "granted" {
		return ExitRefused
	}
	if len(m.Command) == 0 {
		fmt.Fprintf(stderr, "%s: the grant applies to commands started with `%s ... -- COMMAND`, not to running processes\n", ProgramName, ProgramName)
		return 0
	}
	end, err := readReply(conn)
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "%s: the command's end was not reported: %v\n", ProgramName, err)
		return ExitUsage
	case !end.Exited:
		fmt.Fprintf(stderr, "%s: the command did not run: %s\n", ProgramName, end.Error)
		return ExitUsage
	}
	return end.Status
}

// parseArgs reads ACCESS PATH REASON [-- COMMAND ARGS].
func parseArgs(args []string) (Message, error) {
	var cmd []string
	for i, a := range args {
		if a == "--" {
			args, cmd = args[:i], args[i+1:]
			if len(cmd) == 0 {
				return Message{}, fmt.Errorf("no command after --")
			}
			break
		}
	}
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
		return Message{}, fmt.Errorf("help")
	}
	if len(args) != 3 {
		return Message{}, fmt.Errorf("want ACCESS PATH REASON, got %d arguments", len(args))
	}
	return Message{Access: args[0], Path: args[1], Reason: args[2], Command: cmd}, nil
}

// Ask sends m on the socket at sock (with this process's standard
// descriptors when m has a command) and returns the decision and the
// connection, which for a granted command then carries its end.
func Ask(sock string, m Message) (Reply, *net.UnixConn, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return Reply{}, nil, err
	}
	if len(b) > MaxMessageBytes {
		return Reply{}, nil, fmt.Errorf("request of %d bytes: at most %d (shorten the reason; %d bytes of it are kept)", len(b), MaxMessageBytes, 1024)
	}
	c, err := net.DialUnix("unixpacket", nil, &net.UnixAddr{Name: sock, Net: "unixpacket"})
	if err != nil {
		return Reply{}, nil, fmt.Errorf("no permission desk at %s (does this run take requests? --requests): %w", sock, err)
	}
	var oob []byte
	if len(m.Command) > 0 {
		oob = unix.UnixRights(0, 1, 2)
	}
	if _, _, err := c.WriteMsgUnix(b, oob, nil); err != nil {
		c.Close()
		return Reply{}, nil, fmt.Errorf("send request: %w", err)
	}
	r, err := readReply(c)
	if err != nil {
		c.Close()
		return Reply{}, nil, fmt.Errorf("no answer: %w", err)
	}
	return r, c, nil
}

// readReply reads one answer (at most 64 KiB).
func readReply(c *net.UnixConn) (Reply, error) {
	buf := make([]byte, 64<<10)
	n, err := c.Read(buf)
	if err != nil {
		return Reply{}, err
	}
	var r Reply
	if err := json.Unmarshal(buf[:n], &r); err != nil {
		return Reply{}, fmt.Errorf("answer: %w", err)
	}
	r.Why = strings.ToValidUTF8(r.Why, "?")
	return r, nil
}
