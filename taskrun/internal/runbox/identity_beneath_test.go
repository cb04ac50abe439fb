package runbox

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/authbench/authbench/env/imagemeta"
	"github.com/authbench/authbench/internal/safefile"
	"github.com/authbench/authbench/internal/safefile/safefiletest"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tasks"
)

// TestAccountsReadBeneathTheRootfs: the image's /etc/passwd and
// /etc/group are read beneath the rootfs (docs/security.md, "Host-side
// reads"): an /etc linked to a host directory is refused, and a FIFO as
// /etc/group (a Dockerfile's RUN mkfifo) is refused at once instead of
// blocking the run forever, as it did on main.
func TestAccountsReadBeneathTheRootfs(t *testing.T) {
	host := safefiletest.HostDir(t)
	if err := os.WriteFile(filepath.Join(host, "passwd"), []byte("evil:x:0:0:"+safefiletest.Secret+":/:/bin/sh\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	linked := t.TempDir()
	safefiletest.LinkDir(t, filepath.Join(linked, "etc"), host)
	fifo := t.TempDir()
	if err := os.MkdirAll(filepath.Join(fifo, "etc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(fifo, "etc", "passwd"), []byte("evil:x:1000:1000::/:/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	safefiletest.FIFO(t, filepath.Join(fifo, "etc", "group"))
	for _, tc := range []struct {
		rootfs string
		want   error
	}{{linked, safefile.ErrSymlink}, {fifo, safefile.ErrNotRegular}} {
		var errAgent, errIn error
		safefiletest.Within(t, 5*time.Second, func() {
			var id runapi.Identity
			id, errAgent = ResolveAgent(&tasks.Task{Name: "demo"}, &imagemeta.TaskImage{Config: imagemeta.ImageConfig{User: "evil"}}, tc.rootfs)
			if errAgent == nil {
				errAgent = errors.New("resolved " + id.User)
			}
			_, errIn = ResolveIn(tc.rootfs, "evil")
		})
		if !errors.Is(errAgent, tc.want) || !errors.Is(errIn, tc.want) {
			t.Errorf("rootfs %s: ResolveAgent: %v; ResolveIn: %v; want %v", tc.rootfs, errAgent, errIn, tc.want)
		}
	}
}
