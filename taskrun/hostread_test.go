package taskrun

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/safefile"
	"github.com/authbench/authbench/internal/safefile/safefiletest"
)

// The host-side reads of taskrun (docs/security.md, "Host-side reads"):
// each plants a directory link to a root-only host directory in a parent
// component, and a FIFO at the read path.

// TestEscapeDaemonHostReadRewardFiles: the verifier (root in the rootfs)
// linked /logs/verifier to a host directory holding reward.txt, or put a
// FIFO as reward.txt: no verdict comes of either, and the reader never
// blocks (on main the FIFO blocked it forever).
func TestEscapeDaemonHostReadRewardFiles(t *testing.T) {
	host := safefiletest.HostDir(t, "reward.txt", "reward.json")
	for _, target := range []string{host, "/" + filepath.Base(host)} { // outside, and a link inside the rootfs
		rootfs := t.TempDir()
		if err := os.Mkdir(filepath.Join(rootfs, filepath.Base(host)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(rootfs, filepath.Base(host), "reward.txt"), []byte(safefiletest.Secret), 0o644); err != nil {
			t.Fatal(err)
		}
		safefiletest.LinkDir(t, filepath.Join(rootfs, verifierLogDir), target)
		var f rewardFiles
		var err error
		safefiletest.Within(t, 5*time.Second, func() { f, err = readRewardFiles(rootfs) })
		safefiletest.NoSecret(t, "the reward files", string(f.text), string(f.json))
		if !errors.Is(err, safefile.ErrSymlink) {
			t.Errorf("linked /logs/verifier (to %s): %v, want a refused link", target, err)
		}
	}
	rootfs := t.TempDir()
	safefiletest.FIFO(t, filepath.Join(rootfs, rewardTextFile))
	var err error
	safefiletest.Within(t, 5*time.Second, func() { _, err = readRewardFiles(rootfs) })
	if !errors.Is(err, safefile.ErrNotRegular) {
		t.Errorf("reward.txt a FIFO: %v, want a refused FIFO", err)
	}
	// A verifier's own reward is read as before.
	rootfs = t.TempDir()
	if err := os.MkdirAll(filepath.Join(rootfs, verifierLogDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(rootfs, rewardTextFile), []byte("1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if f, err := readRewardFiles(rootfs); err != nil || string(f.text) != "1\n" || f.json != nil {
		t.Errorf("a plain reward.txt: %q %q %v", f.text, f.json, err)
	}
}

// TestEscapeDaemonHostReadTaskTrees: the image's /etc/hosts (read to add the
// network's names) and a compose service's Dockerfile in its copied build
// context are read beneath their tree: a linked parent directory or a
// linked Dockerfile (copyTree copies links as links; on main the
// Dockerfile link was followed to the host file) is refused, a FIFO too.
func TestEscapeDaemonHostReadTaskTrees(t *testing.T) {
	host := safefiletest.HostDir(t, "hosts", "Dockerfile")
	for _, rel := range []string{"etc/hosts", "Dockerfile", "sub/Dockerfile"} {
		tree := t.TempDir()
		dir := filepath.Dir(rel)
		if dir == "." {
			if err := os.Symlink(filepath.Join(host, "Dockerfile"), filepath.Join(tree, rel)); err != nil {
				t.Fatal(err)
			}
		} else {
			safefiletest.LinkDir(t, filepath.Join(tree, dir), host)
		}
		var data []byte
		var err error
		safefiletest.Within(t, 5*time.Second, func() { data, err = readBeneath(tree, rel) })
		safefiletest.NoSecret(t, rel, string(data))
		if !errors.Is(err, safefile.ErrSymlink) {
			t.Errorf("%s through a link: %v, want a refused link", rel, err)
		}
		tree = t.TempDir()
		safefiletest.FIFO(t, filepath.Join(tree, rel))
		safefiletest.Within(t, 5*time.Second, func() { _, err = readBeneath(tree, rel) })
		if !errors.Is(err, safefile.ErrNotRegular) {
			t.Errorf("%s a FIFO: %v, want a refused FIFO", rel, err)
		}
	}
}

// TestEscapeDaemonHostReadVolumeSnapshot: a sidecar that linked a
// directory of its volume to a host directory, or put a FIFO there, adds
// nothing of the host's to the snapshot, and the walk never blocks.
func TestEscapeDaemonHostReadVolumeSnapshot(t *testing.T) {
	host := safefiletest.HostDir(t, "secret.txt", "deeper/more.txt")
	vol := t.TempDir()
	if err := os.WriteFile(filepath.Join(vol, "own.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	safefiletest.LinkDir(t, filepath.Join(vol, "data"), host)
	safefiletest.FIFO(t, filepath.Join(vol, "pipe"))
	var s volumeSnapshot
	safefiletest.Within(t, 5*time.Second, func() { s = snapshotVolumes([]volumeMount{{dir: vol, target: "/v"}}) })
	for p := range s.files {
		if strings.HasPrefix(p, "/v/data") || p == "/v/pipe" {
			t.Errorf("the snapshot holds %s", p)
		}
	}
	if _, ok := s.files["/v/own.txt"]; !ok || len(s.files) != 1 || !s.complete {
		t.Errorf("snapshot = %v (complete %v), want /v/own.txt alone", s.files, s.complete)
	}
}

// TestEscapeDaemonHostReadTamperHash: the tamper check's hash of a file
// the agent left refuses a FIFO (swapped in after its lstat) at once —
// on main it blocked the run — and a link at the name.
func TestEscapeDaemonHostReadTamperHash(t *testing.T) {
	host := safefiletest.HostDir(t, "secret")
	dir := t.TempDir()
	safefiletest.FIFO(t, filepath.Join(dir, "fifo"))
	if err := os.Symlink(filepath.Join(host, "secret"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "own"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	var errFIFO, errLink, errOwn error
	safefiletest.Within(t, 5*time.Second, func() {
		_, errFIFO = hashFile(filepath.Join(dir, "fifo"))
		_, errLink = hashFile(filepath.Join(dir, "link"))
		_, errOwn = hashFile(filepath.Join(dir, "own"))
	})
	if !errors.Is(errFIFO, safefile.ErrNotRegular) || errLink == nil || errOwn != nil {
		t.Errorf("hash of a FIFO: %v; of a link: %v; of a file: %v", errFIFO, errLink, errOwn)
	}
}
