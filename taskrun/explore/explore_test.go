package explore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/env/imagemeta"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/taskrun"
)

// changeAttempts is a generator (python3, the generator itself) that
// tries to change the environment in every way and prints, per attempt,
// the errno name it got ("ok" when it worked) as JSON, then writes a
// policy to the output file.
const changeAttempts = `python3 - <<'PY'
import ctypes, errno, fcntl, json, os, struct
res = {}
def open_close(path, flags):
    os.close(os.open(path, flags))
def on_read_only(path, f):
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        f(fd)
    finally:
        os.close(fd)
def setflags(fd, flag):  # chattr: FS_IOC_GETFLAGS, FS_IOC_SETFLAGS
    cur = struct.unpack("i", fcntl.ioctl(fd, 0x80086601, bytes(4)))[0]
    fcntl.ioctl(fd, 0x40086602, struct.pack("i", cur | flag))
def fssetxattr(fd):  # FS_IOC_FSGETXATTR, FS_IOC_FSSETXATTR with FS_XFLAG_NODUMP
    fsx = bytearray(fcntl.ioctl(fd, 0x801c581f, bytes(28)))
    struct.pack_into("I", fsx, 0, struct.unpack_from("I", fsx)[0] | 0x80)
    fcntl.ioctl(fd, 0x401c5820, bytes(fsx))
def file_setattr(path):  # file_setattr(2), Linux 6.17
    libc = ctypes.CDLL(None, use_errno=True)
    fa = ctypes.create_string_buffer(struct.pack("QIIII", 0x80, 0, 0, 0, 0), 24)
    if libc.syscall(469, -100, path.encode(), fa, 24, 0) != 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
def attempt(name, f):
    try:
        f()
        res[name] = "ok"
    except OSError as e:
        res[name] = errno.errorcode.get(e.errno, str(e.errno))
attempt("write", lambda: open("/app/input.txt", "w").write("x"))
attempt("append", lambda: open("/etc/passwd", "a").write("x"))
attempt("truncate", lambda: os.truncate("/app/input.txt", 0))
attempt("create", lambda: open("/app/new.txt", "x").write("x"))
attempt("create_tmp", lambda: open("/tmp/new.txt", "w").write("x"))
attempt("mkdir", lambda: os.mkdir("/app/newdir"))
attempt("delete", lambda: os.unlink("/app/input.txt"))
attempt("rmdir", lambda: os.rmdir("/app"))
attempt("rename", lambda: os.rename("/app/input.txt", "/app/moved.txt"))
attempt("chmod", lambda: os.chmod("/app/input.txt", 0o777))
attempt("chmod_dir", lambda: os.chmod("/app", 0o700))
attempt("chown", lambda: os.chown("/app/input.txt", 1, 1))
attempt("utime", lambda: os.utime("/app/input.txt", (0, 0)))
attempt("symlink", lambda: os.symlink("/etc/passwd", "/app/link"))
attempt("hardlink", lambda: os.link("/app/input.txt", "/app/hard"))
attempt("setxattr", lambda: os.setxattr("/app/input.txt", "user.x", b"1"))
attempt("trunc_rdonly", lambda: open_close("/app/input.txt", os.O_RDONLY | os.O_TRUNC))
attempt("trunc_rdonly_etc", lambda: open_close("/etc/passwd", os.O_RDONLY | os.O_TRUNC))
attempt("trunc_accmode3", lambda: open_close("/app/input.txt", 3 | os.O_TRUNC))
attempt("chattr_A", lambda: on_read_only("/app/input.txt", lambda fd: setflags(fd, 0x80)))
attempt("chattr_d", lambda: on_read_only("/app/input.txt", lambda fd: setflags(fd, 0x40)))
attempt("fssetxattr", lambda: on_read_only("/app/input.txt", fssetxattr))
attempt("file_setattr", lambda: file_setattr("/app/input.txt"))
attempt("exec_cp", lambda: os.execv("/usr/bin/cp", ["cp", "/app/input.txt", "/app/copy"]))
attempt("read", lambda: open("/app/input.txt").read())
json.dump(res, open("/dev/stderr", "w"))
open("` + OutFile + `", "w").write('{"read": ["/app/input.txt"], "write": [], "execute": []}')
PY`

// TestExploreRefusesEveryChange: a generator that tries to write,
// truncate (truncate(2), and read-only opens with O_TRUNC, which on the
// overlay would copy the file up emptied), create, delete, rename,
// chmod, chown, utime, chattr (+A, +d, the nodump xflag), link and exec
// in the environment gets EACCES or EPERM each time, reads what it
// wants, and the rootfs is byte-identical afterwards (manifest of every
// file: path, mode, size, mtime, inode flags, sha256, link target).
func TestExploreRefusesEveryChange(t *testing.T) {
	setup(t)
	task := fixture(t, "hello-standard")
	dir := t.TempDir()
	var before, after map[string]string
	images := testImages()
	o := Options{
		Options: taskrun.Options{Task: task, Self: testSelf, Images: images, Builder: env.NewBuilder(imagemeta.Buildah, images),
			Tracer: testTr, Dir: dir},
		Command: changeAttempts, Input: "explore", Timeout: 2 * time.Minute,
		inspect: func(phase, rootfs string) {
			m, err := manifest(rootfs)
			if err != nil {
				t.Fatal(err)
			}
			if phase == "before" {
				before = m
			} else {
				after = m
			}
		},
	}
	x, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	stderr, _ := os.ReadFile(filepath.Join(dir, runapi.FileGeneratorStderr))
	if x.ExitCode != 0 || x.TimedOut {
		t.Fatalf("generator exit %d timed out %v: %s", x.ExitCode, x.TimedOut, stderr)
	}
	var res map[string]string
	if err := json.Unmarshal(stderr, &res); err != nil {
		t.Fatalf("generator's report %q: %v", stderr, err)
	}
	for op, got := range res {
		want := []string{"EACCES", "EPERM"}
		if op == "read" {
			want = []string{"ok"}
		}
		if !slices.Contains(want, got) {
			t.Errorf("%s: got %s, want one of %v", op, got, want)
		}
	}
	if len(res) != 25 {
		t.Errorf("%d attempts reported, want 25: %v", len(res), res)
	}
	if !strings.Contains(string(x.Output), "/app/input.txt") {
		t.Errorf("output file: %q", x.Output)
	}
	if !x.Traced || !slices.Contains(x.FilesRead, "/app/input.txt") {
		t.Errorf("files read (traced %v): %v", x.Traced, x.FilesRead)
	}
	if len(before) < 1000 || len(after) != len(before) {
		t.Fatalf("manifest: %d entries before, %d after", len(before), len(after))
	}
	for p, v := range before {
		if after[p] != v {
			t.Errorf("%s changed: %s → %s", p, v, after[p])
		}
	}
}

// manifest lists every entry of the rootfs but the harness's mounts:
// path → type, mode, size, sha256 of a file's content or a link's target.
func manifest(root string) (map[string]string, error) {
	out := map[string]string{}
	skip := map[string]bool{"/proc": true, "/sys": true, "/dev": true, "/.authbench": true, OutDir: true}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := "/" + strings.TrimPrefix(strings.TrimPrefix(p, root), "/")
		if skip[rel] {
			return fs.SkipDir
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		v := fmt.Sprintf("%v %d", info.Mode(), info.Size())
		switch {
		case info.Mode().IsRegular():
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			flags, _ := unix.IoctlGetInt(int(f.Fd()), unix.FS_IOC_GETFLAGS)
			v += fmt.Sprintf(" mtime %d flags %#x", info.ModTime().UnixNano(), flags)
			h := sha256.New()
			_, err = io.Copy(h, f)
			f.Close()
			if err != nil {
				return err
			}
			v += " " + hex.EncodeToString(h.Sum(nil))
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			v += " -> " + target
		}
		out[rel] = v
		return nil
	})
	return out, err
}
