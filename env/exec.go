package env

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// tailLines is how many lines of a failed tool's output an error shows.
const tailLines = 20

// runTool runs argv, streaming its output to log (may be nil), and
// returns its stdout. A failure names the tool and shows the tail of its
// output.
func runTool(ctx context.Context, log io.Writer, stdin io.Reader, argv ...string) (string, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	// On cancellation ask politely first, so that buildah can clean up
	// its working container and storage locks; kill if it lingers.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 15 * time.Second
	var stdout, both bytes.Buffer
	tail := &tailWriter{w: log, tail: &both}
	cmd.Stdin = stdin
	cmd.Stdout = io.MultiWriter(&stdout, tail)
	cmd.Stderr = tail
	if err := cmd.Run(); err != nil {
		msg := lastLines(both.String(), tailLines)
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%v)", ctx.Err(), err)
		}
		if msg == "" {
			return stdout.String(), fmt.Errorf("%s: %w", argv[0], err)
		}
		return stdout.String(), fmt.Errorf("%s: %w; last output:\n%s", argv[0], err, msg)
	}
	return stdout.String(), nil
}

// lastLines returns the last n non-empty lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	var keep []string
	for i := len(lines) - 1; i >= 0 && len(keep) < n; i-- {
		if strings.TrimSpace(lines[i]) != "" {
			keep = append(keep, lines[i])
		}
	}
	for i, j := 0, len(keep)-1; i < j; i, j = i+1, j-1 {
		keep[i], keep[j] = keep[j], keep[i]
	}
	return strings.Join(keep, "\n")
}
