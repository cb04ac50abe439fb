package sandbox

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/capability"
	"github.com/authbench/authbench/policy"
)

// withDockerCapabilities is the escape suite's variant of a tree holding
// Docker's default capability set, as a root task agent does.
func withDockerCapabilities(s *Launch) { s.Capabilities = capability.Docker }

func init() {
	// probeFuncs is built by probe_test.go's init, which runs first (the
	// go command hands files to the compiler sorted by name).
	probeFuncs["chrootescape"] = probeChrootEscape
	probeFuncs["rawdisk"] = probeRawDisk
	probeFuncs["mkfifo"] = func(o probeOp) (string, error) { return "", unix.Mkfifo(o.Path, 0o644) }
	techniques = append(techniques, capabilityTechniques...)
}

// probeChrootEscape is the classic chroot escape with CAP_SYS_CHROOT:
// chroot into a new directory o.Path while the working directory stays
// outside it, climb with "..", chroot("."), then read o.Path2 (an
// absolute path of the real root). Landlock checks the file, not the
// name, so the read must still be refused.
func probeChrootEscape(o probeOp) (string, error) {
	if err := unix.Mkdir(o.Path, 0o755); err != nil {
		return "", fmt.Errorf("mkdir: %w", err)
	}
	if err := unix.Chroot(o.Path); err != nil {
		return "", err
	}
	for range 64 {
		if err := unix.Chdir(".."); err != nil {
			return "", err
		}
	}
	if err := unix.Chroot("."); err != nil {
		return "", err
	}
	return probeRead(probeOp{Path: o.Path2})
}

// probeRawDisk makes o.Path a block device node of the file system it
// is on (CAP_MKNOD) and reads its first block: the whole disk, past
// every Landlock rule, if it works.
func probeRawDisk(o probeOp) (string, error) {
	var st unix.Stat_t
	if err := unix.Stat(filepath.Dir(o.Path), &st); err != nil {
		return "", err
	}
	if unix.Major(st.Dev) == 0 {
		return "", fmt.Errorf("%s is on no block device (%d:%d)", o.Path, unix.Major(st.Dev), unix.Minor(st.Dev))
	}
	if err := unix.Mknod(o.Path, unix.S_IFBLK|0o600, int(st.Dev)); err != nil {
		return "", err
	}
	out, err := probeRead(probeOp{Path: o.Path})
	return strconv.Itoa(len(out)) + " bytes", err
}

// publishedPlan compiles the escape policy with the published launcher's
// semantics, which grant MAKE_BLOCK and MAKE_CHAR on writable directories.
func publishedPlan(t *testing.T, f escapeFixture, _ *escapeWorld, s *Launch) func() {
	s.Plan = withSelf(t, hostPlanWith(t, f.policy(), policy.DefaultBaseline(), policy.PlanOptions{Semantics: policy.SemanticsPublished}))
	return nil
}

// fileCapsProgram replaces X/allowed/suid-id (the policy's one program in
// a writable directory) with a copy of cat(1) carrying Docker's set as
// file capabilities, permitted and effective (a program with more than
// the bounding set allows is refused at exec), and runs the tree as uid 65534,
// whose bounding set holds whatever the tree was granted.
func fileCapsProgram(t *testing.T, f escapeFixture, _ *escapeWorld, s *Launch) func() {
	prog, err := os.ReadFile("/usr/bin/cat")
	if err != nil {
		t.Fatal(err)
	}
	p := f.allowed + "/suid-id"
	os.Remove(p)
	if err := os.WriteFile(p, prog, 0o755); err != nil {
		t.Fatal(err)
	}
	nrs, err := capability.Numbers(capability.Docker)
	if err != nil {
		t.Fatal(err)
	}
	mask := capMask(nrs)
	// struct vfs_cap_data, revision 2, effective: all permitted.
	data := make([]byte, 20)
	binary.LittleEndian.PutUint32(data[0:], 0x02000000|1)
	binary.LittleEndian.PutUint32(data[4:], uint32(mask))
	binary.LittleEndian.PutUint32(data[12:], uint32(mask>>32))
	if err := unix.Setxattr(p, "security.capability", data, 0); err != nil {
		t.Skipf("cannot set file capabilities here: %v", err)
	}
	id := 65534
	s.UID, s.GID = &id, &id
	return nil
}

// effectiveCaps reads CapEff from a /proc/PID/status text.
func effectiveCaps(status string) (uint64, bool) {
	v, ok := capLines(status)["CapEff"]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(v, 16, 64)
	return n, err == nil
}

// capabilityTechniques are the techniques where capabilities matter; the
// suite runs each without capabilities and with Docker's set.
var capabilityTechniques = []technique{
	{name: "chroot escape (chroot, chdir .., chroot .)", root: true, ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
		return []probeOp{{Op: "chrootescape", Path: f.allowed + "/jail", Path2: f.secret}}
	}},
	{name: "mknod the disk's block device, read it", root: true, ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
		return []probeOp{op("rawdisk", f.allowed+"/disk")}
	}},
	{name: "mknod the disk's block device, read it (published)", root: true, ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
		return []probeOp{op("rawdisk", f.allowed+"/disk")}
	}, prepare: publishedPlan},
	{name: "file capabilities on an allowed program (uid 65534)", root: true,
		cmd: func(f escapeFixture, _ *escapeWorld) (string, []string) {
			return f.allowed + "/suid-id", []string{"cat", "/proc/self/status"}
		},
		prepare: fileCapsProgram,
		escaped: func(_ []probeResult, c childResult, _ *escapeWorld) bool {
			eff, ok := effectiveCaps(c.stdout)
			return ok && eff != 0
		}},
	{name: "uid 0 reads a forbidden 0600 file of another uid", root: true, ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
		return []probeOp{op("read", f.forbidden+"/other.txt")}
	}, prepare: withOtherUIDFile("forbidden")},
	{name: "uid 0 writes a forbidden 0600 file of another uid", root: true, ops: func(f escapeFixture, _ *escapeWorld) []probeOp {
		return []probeOp{op("write", f.forbidden+"/other.txt")}
	}, prepare: withOtherUIDFile("forbidden")},
}

// TestFileCapsProgramRunsWithoutSandbox checks the file-capabilities
// technique's fixture: outside the sandbox, uid 65534 running the
// program gains capabilities, so the suite's "blocked" means something.
func TestFileCapsProgramRunsWithoutSandbox(t *testing.T) {
	requireRoot(t, "file capabilities")
	f := newEscapeFixture(t)
	var s Launch
	fileCapsProgram(t, f, nil, &s)
	s.Path, s.Args = f.allowed+"/suid-id", []string{"cat", "/proc/self/status"}
	s.Capabilities = capability.Docker
	s.DropCapabilities = true
	res := runChild(t, s, nil)
	eff, ok := effectiveCaps(res.stdout)
	if res.err != nil || !ok || eff == 0 {
		t.Fatalf("without no_new_privs uid 65534 should gain file capabilities: %v %q (CapEff %x)", res.err, strings.TrimSpace(res.stderr), eff)
	}
}

// TestMknodHolderMakesNoDeviceNodes: a uid-0 tree holding Docker's set
// (CAP_MKNOD among them) under a plan whose writable directory grants
// MAKE_CHAR and MAKE_BLOCK (the published semantics) still cannot make a
// device node there, while it makes a FIFO; without CAP_MKNOD the plan
// is applied as it is.
func TestMknodHolderMakesNoDeviceNodes(t *testing.T) {
	requireRoot(t, "capabilities of a uid-0 tree")
	requireLandlock(t, 1)
	f := newEscapeFixture(t)
	var spec Launch
	publishedPlan(t, f, nil, &spec)
	spec = spec.Confined(spec.Plan, nil)
	spec.Capabilities = capability.Docker
	ops := []probeOp{op("mknodc", f.allowed+"/null"), op("mknod", f.allowed+"/disk"), {Op: "mkfifo", Path: f.allowed + "/fifo"}}
	res, cr := probe(t, spec, ops, nil)
	if len(res) != len(ops) {
		t.Fatalf("probe gave %v (%+v)", res, cr)
	}
	for _, r := range res[:2] {
		if unix.Errno(r.Errno) != unix.EACCES {
			t.Errorf("%s %s with CAP_MKNOD: errno %d, want EACCES (Landlock)", r.Op, r.Path, r.Errno)
		}
	}
	if res[2].Errno != 0 {
		t.Errorf("mkfifo: errno %d, want success", res[2].Errno)
	}
	granted, err := capability.Numbers(capability.Docker)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range withoutDeviceNodes(spec.Plan, granted).Rules {
		if r.Access&deviceCreation != 0 {
			t.Errorf("rule %s keeps %v", r.Path, r.Access&deviceCreation)
		}
	}
	if got := withoutDeviceNodes(spec.Plan, nil); got != spec.Plan {
		t.Error("without CAP_MKNOD the plan should be applied as it is")
	}
}
