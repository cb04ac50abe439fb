package cli

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/sandbox"
)

// unixConnectScript connects to the pathname unix socket argv[1] and
// prints "connected" or the error's name.
const unixConnectScript = `import socket, sys, errno
try:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sys.argv[1])
    print("connected")
except OSError as e:
    print(errno.errorcode.get(e.errno, str(e.errno)))
`

// TestExecRefusesUnixConnect: a confined bare-host tree (python3, whose
// policy reads and executes everything and writes nothing outside its
// directory) connecting to a listening pathname unix socket outside the
// policy, as a client of docker.sock or ssh-agent would, is refused;
// with --allow-unix-connect it connects below Landlock ABI 9 (from ABI
// 9 on Landlock's resolve_unix refuses it either way). Before, it
// connected.
func TestExecRefusesUnixConnect(t *testing.T) {
	requireLandlockCLI(t)
	testenv.NeedRoot(t)
	testenv.NeedTools(t, "python3")
	dir := t.TempDir()
	sock := filepath.Join(t.TempDir(), "service.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	script := writeFile(t, dir, "connect.py", unixConnectScript)
	pol := writeFile(t, dir, "p.json", `{"read":["/**"],"write":["`+dir+`/**"],"execute":["/**"]}`)
	abi := sandbox.KernelLandlockABI()
	for _, c := range []struct {
		flags []string
		want  string
	}{{nil, "EACCES"}, {[]string{"--allow-unix-connect"}, map[bool]string{true: "EACCES", false: "connected"}[abi >= 9]}} {
		args := append(append([]string{"exec", "--policy", pol}, c.flags...), "--", "python3", script, sock)
		code, out, stderr := runCLI(args...)
		if code != 0 || strings.TrimSpace(out) != c.want {
			t.Errorf("%v (Landlock ABI %d): exit %d, out %q, stderr %q; want %s", c.flags, abi, code, out, stderr, c.want)
		}
	}
	if _, err := os.Stat(sock); err != nil {
		t.Fatal(err)
	}
}
