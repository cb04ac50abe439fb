package sandbox

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/policy"
	"golang.org/x/sys/unix"
)

// Inode flags and extended flags the copy-up rows try to set.
const (
	fsNoatimeFl    = 0x80 // chattr +A
	fsNodumpFl     = 0x40 // chattr +d
	fsImmutableFl  = 0x10 // chattr +i
	fsXflagNodump  = 0x80 // FS_XFLAG_NODUMP
	copyUpXattr    = "user.authbench"
	copyUpLowerMsg = "lower-layer content %02d, which a read-only policy must leave as it is\n"
)

// copyUpRow is one way to change a file that is still in an overlay's
// lower layer, which overlayfs copies up to the upper layer first.
type copyUpRow struct {
	name string
	op   func(file string) probeOp
	// by names what refuses it under the default profile; "" marks a
	// metadata change Landlock cannot restrict and the default profile
	// lets through (a documented gap: the file's data must survive, its
	// metadata may change).
	by string
}

// copyUpRows are the operations docs/security.md lists, in its order.
var copyUpRows = []copyUpRow{
	{"open O_RDONLY|O_TRUNC", func(p string) probeOp { return probeOp{Op: "open", Path: p, Arg: unix.O_RDONLY | unix.O_TRUNC} }, "seccomp"},
	{"open O_ACCMODE(3)|O_TRUNC", func(p string) probeOp { return probeOp{Op: "open", Path: p, Arg: 3 | unix.O_TRUNC} }, "seccomp"},
	{"openat2 O_RDONLY|O_TRUNC", func(p string) probeOp { return probeOp{Op: "openat2", Path: p, Arg: unix.O_RDONLY | unix.O_TRUNC} }, "seccomp"},
	{"open O_WRONLY|O_TRUNC", func(p string) probeOp { return probeOp{Op: "open", Path: p, Arg: unix.O_WRONLY | unix.O_TRUNC} }, "Landlock"},
	{"open O_RDWR", func(p string) probeOp { return probeOp{Op: "open", Path: p, Arg: unix.O_RDWR} }, "Landlock"},
	{"truncate(2)", func(p string) probeOp { return op("truncate", p) }, "Landlock"},
	{"ftruncate of a read-only descriptor", func(p string) probeOp { return op("ftruncate", p) }, "kernel"},
	{"fallocate of a read-only descriptor", func(p string) probeOp { return op("fallocate", p) }, "kernel"},
	{"link in the same directory", func(p string) probeOp { return probeOp{Op: "link", Path: p, Path2: p + ".link"} }, "Landlock"},
	{"rename in the same directory", func(p string) probeOp { return probeOp{Op: "rename", Path: p, Path2: p + ".moved"} }, "Landlock"},
	{"unlink", func(p string) probeOp { return op("delete", p) }, "Landlock"},
	{"chown to another uid", func(p string) probeOp { return probeOp{Op: "chown", Path: p, Arg: otherUID} }, "capabilities"},
	{"FS_IOC_SETFLAGS +i", func(p string) probeOp { return probeOp{Op: "setflags", Path: p, Arg: fsImmutableFl} }, "capabilities"},
	{"chmod 0666", func(p string) probeOp { return op("chmod", p) }, ""},
	{"utimensat", func(p string) probeOp { return op("utimens", p) }, ""},
	{"setxattr user.*", func(p string) probeOp { return probeOp{Op: "setxattr", Path: p, Path2: copyUpXattr + "2"} }, ""},
	{"removexattr user.*", func(p string) probeOp { return probeOp{Op: "removexattr", Path: p, Path2: copyUpXattr} }, ""},
	{"FS_IOC_SETFLAGS +A", func(p string) probeOp { return probeOp{Op: "setflags", Path: p, Arg: fsNoatimeFl} }, ""},
	{"FS_IOC_SETFLAGS +d", func(p string) probeOp { return probeOp{Op: "setflags", Path: p, Arg: fsNodumpFl} }, ""},
	{"FS_IOC_FSSETXATTR nodump", func(p string) probeOp { return probeOp{Op: "fssetxattr", Path: p, Arg: fsXflagNodump} }, ""},
	{"file_setattr nodump", func(p string) probeOp { return probeOp{Op: "filesetattr", Path: p, Arg: fsXflagNodump} }, ""},
}

// fileState is what the copy-up rows must not change.
type fileState struct {
	exists       bool
	size         int64
	sum          [32]byte
	mode         uint32
	uid, gid     uint32
	mtime        int64
	flags        int
	xattr        string
	inUpperLayer bool
}

func (s fileState) dataDiffers(o fileState) bool {
	return s.exists != o.exists || s.size != o.size || s.sum != o.sum
}

func (s fileState) String() string {
	if !s.exists {
		return "missing"
	}
	return fmt.Sprintf("size %d sha256 %x mode %o owner %d:%d mtime %d flags %#x xattr %q upper %v",
		s.size, s.sum[:4], s.mode, s.uid, s.gid, s.mtime, s.flags, s.xattr, s.inUpperLayer)
}

// overlayFixture is an overlay mount whose lower layer holds one file
// per copy-up row.
type overlayFixture struct {
	lower, upper, merged string
}

func (o overlayFixture) file(i int) string { return fmt.Sprintf("%s/f%02d.txt", o.merged, i) }

// newOverlayFixture mounts an overlay on merged ("": a new directory;
// lower, upper and work directories in a fixture directory) with n
// files in its lower layer: mode 0644, an old mtime, and a user.*
// extended attribute.
func newOverlayFixture(t *testing.T, merged string, n int) overlayFixture {
	t.Helper()
	dir := fixtureDir(t)
	if merged == "" {
		merged = dir + "/merged"
	}
	o := overlayFixture{lower: dir + "/lower", upper: dir + "/upper", merged: merged}
	for _, d := range []string{o.lower, o.upper, dir + "/work", o.merged} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	for i := range n {
		p := fmt.Sprintf("%s/f%02d.txt", o.lower, i)
		if err := os.WriteFile(p, []byte(strings.Repeat(fmt.Sprintf(copyUpLowerMsg, i), 100)), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := unix.Setxattr(p, copyUpXattr, []byte("lower"), 0); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	opts := fmt.Sprintf("lowerdir=%s,upperdir=%s,workdir=%s", o.lower, o.upper, dir+"/work")
	if err := unix.Mount("overlay", o.merged, "overlay", 0, opts); err != nil {
		t.Fatalf("mount overlay: %v", err)
	}
	t.Cleanup(func() { unix.Unmount(o.merged, unix.MNT_DETACH) })
	return o
}

// state reads file i as the test (root) sees it through the overlay.
func (o overlayFixture) state(t *testing.T, i int) fileState {
	t.Helper()
	p := o.file(i)
	var st unix.Stat_t
	if err := unix.Stat(p, &st); err != nil {
		return fileState{}
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	s := fileState{exists: true, size: st.Size, sum: sha256.Sum256(data), mode: st.Mode, uid: st.Uid, gid: st.Gid,
		mtime: st.Mtim.Nano()}
	if fd, err := unix.Open(p, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0); err == nil {
		s.flags, _ = unix.IoctlGetInt(fd, unix.FS_IOC_GETFLAGS)
		unix.Close(fd)
	}
	buf := make([]byte, 64)
	if n, err := unix.Getxattr(p, copyUpXattr, buf); err == nil {
		s.xattr = string(buf[:n])
	}
	if n, err := unix.Getxattr(p, copyUpXattr+"2", buf); err == nil {
		s.xattr += "," + string(buf[:n])
	}
	_, err = os.Lstat(filepath.Join(o.upper, filepath.Base(p)))
	s.inUpperLayer = err == nil
	return s
}

// readOnlyOverlaySpec confines a probe to read /** and write /tmp/**
// only, with filter (nil: no seccomp).
func readOnlyOverlaySpec(t *testing.T, filter *Filter) Launch {
	pl := hostPlan(t, policyDoc([]string{"/**"}, []string{"/tmp/**"}, nil), policy.NoBaseline())
	return Launch{}.Confined(withSelf(t, pl), filter)
}

// TestOverlayLowerFilesUnchanged: under a read-only policy and the
// default profile, no operation changes the data of a file that is
// still in an overlay's lower layer — task containers and the
// generation copy are overlays. Refused rows leave the file entirely
// as it was; the metadata rows Landlock cannot restrict (documented in
// docs/security.md) may change metadata but never size or content. Run
// once more without seccomp, it shows what the profile adds (logged).
func TestOverlayLowerFilesUnchanged(t *testing.T) {
	requireRoot(t, "mounts an overlay")
	abi := requireLandlock(t, 3) // truncate is a right from ABI 3
	filter, err := DefaultFilter()
	if err != nil {
		t.Fatal(err)
	}
	run := func(filter *Filter) (overlayFixture, []probeResult, []fileState) {
		o := newOverlayFixture(t, "", len(copyUpRows))
		before := make([]fileState, len(copyUpRows))
		ops := make([]probeOp, len(copyUpRows))
		for i, r := range copyUpRows {
			before[i] = o.state(t, i)
			ops[i] = r.op(o.file(i))
		}
		res, c := probe(t, readOnlyOverlaySpec(t, filter), ops, nil)
		if len(res) != len(ops) {
			t.Fatalf("probe: %d of %d results: %v\n%s", len(res), len(ops), c.err, c.stderr)
		}
		return o, res, before
	}
	o, res, before := run(filter)
	bare, bareRes, bareBefore := run(nil)
	var table strings.Builder
	for i, r := range copyUpRows {
		after := o.state(t, i)
		outcome := "ok"
		if e := res[i].Errno; e != 0 {
			outcome = unix.ErrnoName(unix.Errno(e))
		}
		bareOutcome := "ok"
		if e := bareRes[i].Errno; e != 0 {
			bareOutcome = unix.ErrnoName(unix.Errno(e))
		}
		if bareAfter := bare.state(t, i); bareAfter.dataDiffers(bareBefore[i]) {
			bareOutcome += ", DATA CHANGED"
		}
		fmt.Fprintf(&table, "  %-36s %-8s %-13s without seccomp: %s\n", r.name, outcome, r.by, bareOutcome)
		switch {
		case after.dataDiffers(before[i]):
			t.Errorf("%s (%s): the lower file's data changed: %v → %v", r.name, outcome, before[i], after)
		case r.by == "":
			if after != before[i] {
				t.Logf("%s: metadata changed, as documented: %v → %v", r.name, before[i], after)
			}
		case res[i].Errno == 0:
			t.Errorf("%s: allowed, want refused by %s", r.name, r.by)
		case after != before[i]:
			t.Errorf("%s (%s): refused, yet the file changed: %v → %v", r.name, outcome, before[i], after)
		}
	}
	t.Logf("overlay lower files under read /**, write /tmp/** (Landlock ABI %d), default profile:\n%s", abi, table.String())
}

// escapeOverlay is the overlay a truncation technique works on, mounted
// by withOverlayLowerFile, and its file's state before.
var escapeOverlay struct {
	o      overlayFixture
	t      *testing.T
	before fileState
}

// withOverlayLowerFile mounts an overlay on X/readonly/ovl (readable by
// the escape policy, not writable) whose file 0 is in the lower layer.
func withOverlayLowerFile(t *testing.T, f escapeFixture, _ *escapeWorld, _ *Launch) func() {
	escapeOverlay.o = newOverlayFixture(t, f.readonly+"/ovl", 1)
	escapeOverlay.t = t
	escapeOverlay.before = escapeOverlay.o.state(t, 0)
	return nil
}

// overlayFileChanged judges a truncation technique: it escaped when the
// lower file's size or content changed, whatever the call answered.
func overlayFileChanged(_ []probeResult, _ childResult, _ *escapeWorld) bool {
	return escapeOverlay.o.state(escapeOverlay.t, 0).dataDiffers(escapeOverlay.before)
}

// overlayTruncTechnique is an escape technique that applies op to an
// overlay file still in its lower layer.
func overlayTruncTechnique(name string, o probeOp) technique {
	return technique{name: name, root: true, prepare: withOverlayLowerFile, escaped: overlayFileChanged,
		ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
			o.Path = escapeOverlay.o.file(0)
			return []probeOp{o}
		}}
}
