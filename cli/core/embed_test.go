package core

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/authbench/authbench/daemon"

	"github.com/authbench/authbench/internal/testenv"
)

// TestMain lets the test binary serve as the state watchdog an embedded
// daemon starts (it re-executes os.Executable(), this binary).
func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == daemon.WatchdogCommand {
		if err := daemon.RunWatchdog(os.Args[2], nil, zap.NewNop()); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestEmbedOneShotStateIsRemoved: an embedded daemon without a state
// directory (exec, trace) gets one of its own, which closing removes;
// the close reports no error.
func TestEmbedOneShotStateIsRemoved(t *testing.T) {
	testenv.NeedRoot(t)
	e, err := Embed(zap.NewNop(), EmbedConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(e.tmpState); err != nil || !st.IsDir() {
		t.Fatalf("state dir %q: %v", e.tmpState, err)
	}
	if err := e.Close(zap.NewNop()); err != nil {
		t.Errorf("close: %v", err)
	}
	if _, err := os.Stat(e.tmpState); !os.IsNotExist(err) {
		t.Errorf("state dir %q left: %v", e.tmpState, err)
	}
}

// TestEmbedWatchdogEndsWithClose: an embedded daemon on a given state
// directory (task run, bench, generate, oracle) starts its watchdog,
// keeps the directory, and closing it ends the watchdog.
func TestEmbedWatchdogEndsWithClose(t *testing.T) {
	testenv.NeedRoot(t)
	state := filepath.Join(t.TempDir(), "state")
	e, err := Embed(zap.NewNop(), EmbedConfig{StateDir: state, Watchdog: true})
	if err != nil {
		t.Fatal(err)
	}
	pid := e.emb.WatchdogPID()
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("watchdog %d: %v", pid, err)
	}
	if err := e.Close(zap.NewNop()); err != nil {
		t.Errorf("close: %v", err)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var ws syscall.WaitStatus
		if wpid, _ := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil); wpid == pid || syscall.Kill(pid, 0) != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("watchdog %d still running after close", pid)
		}
	}
	if _, err := os.Stat(state); err != nil {
		t.Errorf("the state dir was removed: %v", err)
	}
}
