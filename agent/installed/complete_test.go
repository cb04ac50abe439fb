package installed

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/testenv"
)

// TestCompleteIsConfinedAndBounded: the install completion runs as a
// sandboxed tree through the one lifecycle (lifecycle.Run): confined to
// writing beneath the layer, its exit status reported, and killed with
// its whole tree when its context ends. The layer's "node" is a script.
func TestCompleteIsConfinedAndBounded(t *testing.T) {
	testenv.NeedRoot(t)
	self := testenv.Authbench(t)
	// Outside the layer and the baseline's scratch /tmp.
	outsideDir, err := os.MkdirTemp("/var/tmp", "authbench-complete-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(outsideDir) })
	outside := filepath.Join(outsideDir, "outside")
	for _, tc := range []struct {
		name, script, err string
		timeout           time.Duration
	}{
		{"succeeds", `echo "$@" > "$HOME/../args"`, "", 0},
		{"fails", "exit 3", "exit status 3", 0},
		{"writes outside the layer", "echo x > " + outside, "exit status", 0},
		{"outlives its context", `"$HOME/../sleep" 4346.5 & "$HOME/../sleep" 4346.5; wait`, "context deadline exceeded", 500 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			node := filepath.Join(dir, Node)
			if err := os.MkdirAll(filepath.Dir(node), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(node, []byte("#!/bin/sh\n"+tc.script+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			// A sleep the plan lets the tree run (it executes beneath the layer).
			sleep, err := os.ReadFile("/bin/sleep")
			if err == nil {
				err = os.WriteFile(filepath.Join(dir, "sleep"), sleep, 0o755)
			}
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if tc.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.timeout)
				defer cancel()
			}
			h := Harness{Name: "fake", Complete: []string{"install", "--yes"}}
			var log strings.Builder
			begin := time.Now()
			err = complete(ctx, dir, h, self, &log)
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("complete: %v (log %q)", err, log.String())
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("complete: %v; want an error with %q (log %q)", err, tc.err, log.String())
			}
			if tc.timeout > 0 && time.Since(begin) > tc.timeout+installKillGrace {
				t.Errorf("complete took %v past its context", time.Since(begin))
			}
			if tc.err == "" {
				args, err := os.ReadFile(filepath.Join(dir, "args"))
				if err != nil || !strings.HasSuffix(strings.TrimSpace(string(args)), "install --yes") {
					t.Errorf("args %q, %v; want the entry and install --yes", args, err)
				}
			}
			if _, err := os.Stat(outside); !os.IsNotExist(err) {
				t.Errorf("the completion wrote outside its layer: %v", err)
			}
			if ps := sleeping(" 4346.5"); len(ps) > 0 {
				t.Errorf("left running: %v", ps)
			}
		})
	}
}

// sleeping are the pids of sleeps whose command line ends in suffix.
func sleeping(suffix string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		cmd := strings.ReplaceAll(strings.TrimRight(string(data), "\x00"), "\x00", " ")
		if err == nil && strings.HasSuffix(cmd, suffix) && strings.Contains(cmd, "sleep") {
			out = append(out, e.Name())
		}
	}
	return out
}
