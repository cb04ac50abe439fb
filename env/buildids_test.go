package env

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/authbench/authbench/tasks"
	"golang.org/x/sys/unix"
)

func TestImageID(t *testing.T) {
	for _, c := range []struct{ in, want uint32 }{
		{0, 0}, {1000, 1000}, {65534, 65534},
		{BuildHostID, 0}, {BuildHostID + 1000, 1000}, {BuildHostID + BuildIDCount - 1, BuildIDCount - 1},
		{BuildHostID - 1, BuildHostID - 1}, {BuildHostID + BuildIDCount, BuildHostID + BuildIDCount},
		{^uint32(0), ^uint32(0)},
	} {
		if got := imageID(c.in); got != c.want {
			t.Errorf("imageID(%d) = %d, want %d", c.in, got, c.want)
		}
	}
}

// capV3 is a v3 security.capability value (cap_net_raw permitted and
// effective) with rootid.
func capV3(rootid uint32) []byte {
	v := make([]byte, vfsCapV3Size)
	binary.LittleEndian.PutUint32(v[0:4], vfsCapRevision3|1) // VFS_CAP_FLAGS_EFFECTIVE
	binary.LittleEndian.PutUint32(v[4:8], 1<<13)             // CAP_NET_RAW
	binary.LittleEndian.PutUint32(v[20:24], rootid)
	return v
}

func TestImageCapability(t *testing.T) {
	got := imageCapability(capV3(BuildHostID))
	want := make([]byte, vfsCapV2Size)
	binary.LittleEndian.PutUint32(want[0:4], vfsCapRevision2|1)
	binary.LittleEndian.PutUint32(want[4:8], 1<<13)
	if !bytes.Equal(got, want) {
		t.Errorf("v3 of the step's root: %x, want the v2 value %x", got, want)
	}
	for name, v := range map[string][]byte{
		"v3 of another root": capV3(5000),
		"v2":                 want,
		"short":              {1, 2, 3},
	} {
		if got := imageCapability(v); !bytes.Equal(got, v) {
			t.Errorf("%s: changed to %x", name, got)
		}
	}
	if got := imageXattr("user.note", capV3(BuildHostID)); !bytes.Equal(got, capV3(BuildHostID)) {
		t.Errorf("another attribute changed: %x", got)
	}
}

// A confined RUN step's files (root's, another user's, set-ID, a link)
// reach the exported rootfs with the owners, modes and capabilities the
// step gave them, not the host ids of its user namespace: git refuses a
// repository root does not own.
func TestBuildKeepsTheStepsOwners(t *testing.T) {
	s, b, base := needBase(t)
	dir := copyTask(t, "hello-standard")
	// A new comment each run: the export, not a cached rootfs, is tested.
	dockerfile := "# " + t.Name() + " " + time.Now().Format(time.RFC3339Nano) + "\n" + `FROM authbench-base
WORKDIR /app
COPY input.txt /app/input.txt
RUN mkdir /app/made && echo x > /app/made/root-file && chmod 4755 /app/made/root-file \
 && touch /app/made/user-file && chown 1000:1001 /app/made/user-file \
 && ln -s root-file /app/made/link && mkdir /app/made/repo && git -C /app/made/repo init -q
`
	if err := os.WriteFile(filepath.Join(dir, "environment", "Dockerfile"), []byte(dockerfile), 0o644); err != nil {
		t.Fatal(err)
	}
	task, err := tasks.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	img, _, err := BuildTask(t.Context(), s, task, BuildOptions{Builder: b, Base: base})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path     string
		uid, gid uint32
		perm     uint32
	}{
		{"app/input.txt", 0, 0, 0},
		{"app/made", 0, 0, 0},
		{"app/made/root-file", 0, 0, 04755},
		{"app/made/user-file", 1000, 1001, 0},
		{"app/made/link", 0, 0, 0},
		{"app/made/repo/.git", 0, 0, 0},
		{"app/made/repo/.git/HEAD", 0, 0, 0},
	} {
		var st unix.Stat_t
		if err := unix.Lstat(filepath.Join(img.Rootfs, c.path), &st); err != nil {
			t.Errorf("%s: %v", c.path, err)
			continue
		}
		if st.Uid != c.uid || st.Gid != c.gid {
			t.Errorf("%s is owned by %d:%d, want %d:%d", c.path, st.Uid, st.Gid, c.uid, c.gid)
		}
		if c.perm != 0 && st.Mode&07777 != c.perm {
			t.Errorf("%s has mode %o, want %o", c.path, st.Mode&07777, c.perm)
		}
	}
}
