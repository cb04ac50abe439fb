package session

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/internal/safefile/safefiletest"
	"github.com/authbench/authbench/taskrun/internal/runbox"
)

// TestPrepareRefusesAFIFO: an image with a FIFO where the authbench
// binary is mounted (RUN mkfifo) gets a clear error at once; on main the
// open for writing blocked the run forever.
func TestPrepareRefusesAFIFO(t *testing.T) {
	rootfs := t.TempDir()
	safefiletest.FIFO(t, filepath.Join(rootfs, runbox.BinaryInContainer[1:]))
	var err error
	safefiletest.Within(t, 5*time.Second, func() { err = Prepare(&runbox.Box{Rootfs: &env.Rootfs{Path: rootfs}}) })
	if err == nil {
		t.Fatal("Prepare over a FIFO: no error")
	}
	// A plain rootfs gets its empty file.
	rootfs = t.TempDir()
	if err := Prepare(&runbox.Box{Rootfs: &env.Rootfs{Path: rootfs}}); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(filepath.Join(rootfs, runbox.BinaryInContainer[1:])); err != nil || !st.Mode().IsRegular() {
		t.Fatalf("the prepared file: %v, %v", st, err)
	}
}
