package cli

import (
	"bufio"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/authbench/authbench/trial"
)

func TestViewBadInputExits2(t *testing.T) {
	dir := writeOutDir(t, trial.Record{Identity: trial.Identity{Task: "t", Source: "spec", Agent: "oracle", Dataset: "standard"}})
	for _, args := range [][]string{
		{"view"},
		{"view", dir, "--listen", "0.0.0.0:8765"},
		{"view", dir, "--listen", ":8765"},
		{"view", dir, "--listen", "192.0.2.1:80"},
		{"view", dir, "--listen", "no-port"},
		{"view", dir, "--no-such-flag"},
	} {
		code, _, stderr := runCLI(args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, stderr)
		}
	}
	if code, _, stderr := runCLI("view", t.TempDir(), "--listen", "127.0.0.1:0"); code != 1 || !strings.Contains(stderr, "no results database") {
		t.Errorf("a dir that is no out dir: exit %d: %s", code, stderr)
	}
}

// TestViewServesUntilInterrupted runs the command, reads a page at the
// address it prints, and stops it with SIGINT.
func TestViewServesUntilInterrupted(t *testing.T) {
	dir := writeOutDir(t, trial.Record{Identity: trial.Identity{Task: "t", Source: "spec", Agent: "oracle", Dataset: "standard"}, Verdicts: trial.Verdicts{Utility: true}})
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		var stderr strings.Builder
		done <- Run([]string{"view", dir, "--listen", "127.0.0.1:0"}, pw, &stderr)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, pr)
	url := strings.Fields(strings.TrimPrefix(line, "authbench view: "))[0]
	resp, err := http.Get(url + "jobs/0/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "run-0") {
		t.Errorf("GET %sjobs/0/: %d %.300s", url, resp.StatusCode, body)
	}
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("interrupted view exited %d, want 0", code)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("view did not stop on SIGINT")
	}
}
