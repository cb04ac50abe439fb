package taskrun

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/env/imagemeta"
	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/tasks"
)

// TestVolumeOnRootfsIsNosuid: a named volume bind-mounted on the agent's
// rootfs is nosuid and nodev like every bind of the container (a set-ID
// file the agent makes there grants nothing), read-only when the service
// says so, and shows the volume's files.
func TestVolumeOnRootfsIsNosuid(t *testing.T) {
	testenv.NeedRoot(t)
	for _, ro := range []bool{false, true} {
		rootfs, vol := t.TempDir(), t.TempDir()
		if err := os.WriteFile(filepath.Join(vol, "upload"), nil, 0o4755); err != nil {
			t.Fatal(err)
		}
		cr := &composeRun{volumes: map[string]string{"v": vol}, filled: map[string]bool{"v": true}}
		if err := cr.mountOnRootfs(rootfs, tasks.VolumeMount{Volume: "v", Target: "/var/../data", ReadOnly: ro}); err != nil {
			t.Fatal(err)
		}
		var st unix.Statfs_t
		err := unix.Statfs(filepath.Join(rootfs, "data", "upload"), &st)
		for _, m := range cr.mounted {
			if uerr := unix.Unmount(fdPath(m), unix.MNT_DETACH); uerr != nil {
				t.Error(uerr)
			}
			m.Close()
		}
		if err != nil {
			t.Fatal(err)
		}
		want := int64(unix.ST_NOSUID | unix.ST_NODEV)
		if ro {
			want |= unix.ST_RDONLY
		}
		if got := st.Flags & (unix.ST_NOSUID | unix.ST_NODEV | unix.ST_RDONLY); got != want {
			t.Errorf("read-only %v: volume mounted with flags %#x, want %#x", ro, got, want)
		}
	}
}

func TestSidecarArgv(t *testing.T) {
	img := imagemeta.ImageConfig{Entrypoint: []string{"/entry"}, Cmd: []string{"serve"}}
	for _, tt := range []struct {
		sc   tasks.Sidecar
		want []string
	}{
		{tasks.Sidecar{}, []string{"/entry", "serve"}},
		{tasks.Sidecar{Command: []string{"run"}}, []string{"/entry", "run"}},
		{tasks.Sidecar{Entrypoint: []string{"/other"}}, []string{"/other"}},
		{tasks.Sidecar{Entrypoint: []string{"/other"}, Command: []string{"x"}}, []string{"/other", "x"}},
	} {
		if got := sidecarArgv(tt.sc, img); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%+v: %v, want %v", tt.sc, got, tt.want)
		}
	}
}
