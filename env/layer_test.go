package env

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/tasks"
)

func TestOverlayLowers(t *testing.T) {
	const info = `22 1 8:0 / / rw,relatime shared:1 - ext4 /dev/vda rw
71 44 0:40 / /img/overlay/abc/merged rw,relatime - overlay overlay rw,lowerdir=/img/overlay/l/TOP:/img/overlay/l/BASE,upperdir=/img/overlay/abc/diff,workdir=/img/overlay/abc/work,uuid=on
72 44 0:41 / /img/with\040space/merged rw shared:7 master:1 - overlay overlay rw,lowerdir=/a\072b:/c\134d,upperdir=/u,workdir=/w
73 44 0:42 / /img/new-api rw - overlay overlay rw,lowerdir+=/x,lowerdir+=/y,upperdir=/u,workdir=/w
74 44 0:43 / /img/relative rw - overlay overlay rw,lowerdir=l/ABC:l/DEF,upperdir=/u,workdir=/w
75 44 8:0 /x /img/bind rw - ext4 /dev/vda rw
`
	cases := []struct {
		mnt     string
		want    []string
		wantErr string
	}{
		{"/img/overlay/abc/merged", []string{"/img/overlay/l/TOP", "/img/overlay/l/BASE"}, ""},
		{"/img/with space/merged", []string{"/a:b", `/c\d`}, ""},
		{"/img/new-api", []string{"/x", "/y"}, ""},
		{"/img/relative", nil, "not an absolute path"},
		{"/img/bind", nil, "not overlay"},
		{"/img/none", nil, "not a mount point"},
	}
	for _, tc := range cases {
		got, err := OverlayLowers([]byte(info), tc.mnt)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: err = %v, want %q", tc.mnt, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %q, %v; want %q", tc.mnt, got, err, tc.want)
		}
	}
}

// TestApplyLayer applies a hand-made overlay layer (whiteout, opaque
// directory, replaced and new files, a file over a directory and back, a
// hard-link pair, a set-uid file) onto a hard-link copy of a base and
// checks the result, and that the base, whose inodes the copy shares,
// did not change.
func TestApplyLayer(t *testing.T) {
	needRoot(t) // whiteouts are devices, the opaque mark a trusted.* attribute
	dir := t.TempDir()
	base, layer, dst := filepath.Join(dir, "base"), filepath.Join(dir, "layer"), filepath.Join(dir, "dst")
	write := func(root, rel, content string, mode uint32) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := unix.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	write(base, "etc/motd", "base motd\n", 0o644)
	write(base, "etc/issue", "base issue\n", 0o644)
	write(base, "etc/keep", "kept\n", 0o644)
	write(base, "doc/a", "a\n", 0o644)
	write(base, "doc/sub/b", "b\n", 0o644)
	write(base, "man/page", "page\n", 0o644)
	write(base, "shells", "/bin/sh\n", 0o644)
	os.Symlink("motd", filepath.Join(base, "etc/link"))

	for _, d := range []string{"etc", "doc", "man", "shells", "opt"} {
		if err := os.MkdirAll(filepath.Join(layer, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(layer, "etc/motd", "task motd\n", 0o600)                                    // replaced, new mode
	noErr(t, unix.Mknod(filepath.Join(layer, "etc/issue"), unix.S_IFCHR, 0))          // whiteout
	noErr(t, unix.Setxattr(filepath.Join(layer, "doc"), opaqueXattr, []byte("y"), 0)) // opaque
	write(layer, "doc/new", "new\n", 0o644)
	os.Remove(filepath.Join(layer, "man"))
	write(layer, "man", "now a file\n", 0o644) // directory → file
	os.Remove(filepath.Join(layer, "shells"))
	write(layer, "shells/x", "now a dir\n", 0o644) // file → directory
	write(layer, "opt/tool", "#!/bin/sh\n", 0o4755)
	noErr(t, os.Link(filepath.Join(layer, "opt/tool"), filepath.Join(layer, "opt/tool2")))
	noErr(t, os.Symlink("/opt/tool", filepath.Join(layer, "etc/link")))
	noErr(t, os.Chown(filepath.Join(layer, "opt"), 1000, 1000))
	mtime := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	noErr(t, os.Chtimes(filepath.Join(layer, "opt"), mtime, mtime))

	if out, err := runTool(context.Background(), nil, nil, "cp", "-a", "--link", base, dst); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	before := treeSummary(t, base)
	if err := applyLayer(layer, dst); err != nil {
		t.Fatal(err)
	}
	if after := treeSummary(t, base); !reflect.DeepEqual(before, after) {
		t.Errorf("the base changed:\nbefore %q\nafter  %q", before, after)
	}
	got := treeSummary(t, dst)
	want := []string{
		"doc d755 0:0",
		"doc/new f644 0:0 new\n",
		"etc d755 0:0",
		"etc/keep f644 0:0 kept\n",
		"etc/link l -> /opt/tool",
		"etc/motd f600 0:0 task motd\n",
		"man f644 0:0 now a file\n",
		"opt d755 1000:1000",
		"opt/tool f4755 0:0 #!/bin/sh\n",
		"opt/tool2 f4755 0:0 #!/bin/sh\n",
		"shells d755 0:0",
		"shells/x f644 0:0 now a dir\n",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("applied tree:\n got %q\nwant %q", got, want)
	}
	a, _ := os.Stat(filepath.Join(dst, "opt/tool"))
	b, _ := os.Stat(filepath.Join(dst, "opt/tool2"))
	if a == nil || b == nil || !os.SameFile(a, b) {
		t.Error("the layer's hard-link pair is two files")
	}
	k1, _ := os.Stat(filepath.Join(dst, "etc/keep"))
	k2, _ := os.Stat(filepath.Join(base, "etc/keep"))
	if k1 == nil || k2 == nil || !os.SameFile(k1, k2) {
		t.Error("etc/keep is no longer shared with the base")
	}
	if st, err := os.Stat(filepath.Join(dst, "opt")); err != nil || !st.ModTime().Equal(mtime) {
		t.Errorf("opt's mtime: %v %v", st.ModTime(), err)
	}
	if _, err := unix.Lgetxattr(filepath.Join(dst, "doc"), opaqueXattr, make([]byte, 8)); err == nil {
		t.Error("the opaque mark was copied into the rootfs")
	}

	t.Run("overlay marks it does not know are refused", func(t *testing.T) {
		bad := filepath.Join(dir, "bad")
		write(bad, "moved/f", "x", 0o644)
		noErr(t, unix.Setxattr(filepath.Join(bad, "moved"), overlayXattrPrefix+"redirect", []byte("/old"), 0))
		if err := applyLayer(bad, dst); err == nil || !strings.Contains(err.Error(), "redirect") {
			t.Errorf("err = %v", err)
		}
	})
}

func noErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// treeSummary lists every entry below root, sorted: path, type and mode,
// owner, and a regular file's content (or a symlink's target).
func treeSummary(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			return err
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFLNK:
			target, _ := os.Readlink(p)
			out = append(out, rel+" l -> "+target)
		case unix.S_IFDIR:
			out = append(out, fmt.Sprintf("%s d%o %d:%d", rel, st.Mode&07777, st.Uid, st.Gid))
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out = append(out, fmt.Sprintf("%s f%o %d:%d %s", rel, st.Mode&07777, st.Uid, st.Gid, data))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// TestOverlayExportMatchesMount builds an image whose layer deletes,
// replaces, re-types and re-owns base files, then exports it twice: the
// way BuildTask does (exportOverBase: the base's files plus the task's
// layer) and as a full copy of buildah's own mount of the image. The two trees must be
// the same, entry by entry (type, mode, owner, size, content, link
// target, device, extended attributes, modification time), and the
// base's files must be shared, not copied.
func TestOverlayExportMatchesMount(t *testing.T) {
	s, b, base := needBase(t)
	if b.driver() != Overlay {
		t.Fatalf("NewBuilder uses the %s driver, want overlay", b.driver())
	}
	dir := copyTask(t, "hello-standard")
	os.WriteFile(filepath.Join(dir, tasks.DirEnvironment, ".nonce"), []byte(time.Now().String()), 0o644)
	dockerfile := `FROM authbench-base
COPY input.txt /opt/files/a
COPY input.txt /opt/files/b
RUN rm /etc/issue.net \
 && rm -rf /usr/share/doc/git && mkdir /usr/share/doc/git && echo new > /usr/share/doc/git/NEW \
 && chmod 0600 /etc/debian_version \
 && echo changed >> /etc/motd \
 && ln -sf /bin/true /usr/local/bin/t \
 && ln /opt/files/a /opt/files/a-link && chmod 4755 /opt/files/a \
 && rm -rf /usr/share/man && echo file > /usr/share/man \
 && rm /etc/shells && mkdir /etc/shells && echo x > /etc/shells/x \
 && mkfifo /opt/fifo \
 && setfacl -m u:1000:rx /opt/files \
 && chown 1000:1000 /opt/files/b \
 && mkdir -p /var/tmp/sticky && chmod 1777 /var/tmp/sticky \
 && touch -d '2020-01-02 03:04:05' /opt/files
WORKDIR /app
`
	if err := os.WriteFile(filepath.Join(dir, tasks.FileDockerfile), []byte(dockerfile), 0o644); err != nil {
		t.Fatal(err)
	}
	task, err := tasks.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	baseBefore := hashFileSet(t, base.Rootfs, "etc/debian_version", "etc/motd", "etc/issue.net", "etc/shells")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	df := filepath.Join(t.TempDir(), "Dockerfile")
	os.WriteFile(df, []byte(dockerfile), 0o644)
	tag := "localhost/authbench-test/overlay-export:" + fmt.Sprint(time.Now().UnixNano())
	if err := runBuild(ctx, s, BuildOptions{Builder: b}, BuildSpec{Dockerfile: df, ContextDir: task.ContextDir(), Tag: tag}); err != nil {
		t.Fatal(err)
	}
	defer runTool(context.Background(), nil, nil, b.RemoveImageArgv(tag)...)
	inspect, err := runTool(ctx, nil, nil, b.InspectArgv(tag)...)
	if err != nil {
		t.Fatal(err)
	}
	tmp, err := s.tmpDir("overlay-export-test-") // beside the base: links need one file system
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	rootfs := filepath.Join(tmp, "rootfs")
	os.Mkdir(rootfs, 0o755)
	if err := exportOverBase(ctx, b, tag, []byte(inspect), base, rootfs, nil); err != nil {
		t.Fatal(err)
	}
	if after := hashFileSet(t, base.Rootfs, "etc/debian_version", "etc/motd", "etc/issue.net", "etc/shells"); after != baseBefore {
		t.Error("exporting the image changed the base's files")
	}
	shared, err := dedupe(base.Rootfs, rootfs)
	if err != nil || shared < 100<<20 {
		t.Errorf("only %d bytes shared with the base (%v)", shared, err)
	}
	// The reference: buildah's own view of the same image, copied whole.
	ref := filepath.Join(t.TempDir(), "rootfs")
	os.Mkdir(ref, 0o755)
	if err := exportImage(ctx, b, tag, ref, nil); err != nil {
		t.Fatal(err)
	}
	got, want := treeDetails(t, rootfs), treeDetails(t, ref)
	if len(want) < 10000 {
		t.Fatalf("the reference rootfs has only %d entries", len(want))
	}
	var diffs []string
	for p, w := range want {
		if g, ok := got[p]; !ok {
			diffs = append(diffs, "missing "+p)
		} else if g != w {
			diffs = append(diffs, fmt.Sprintf("%s:\n   got %s\n  want %s", p, g, w))
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			diffs = append(diffs, "extra "+p)
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		if len(diffs) > 30 {
			diffs = append(diffs[:30], fmt.Sprintf("... %d more", len(diffs)-30))
		}
		t.Errorf("%d differences from buildah's mount:\n%s", len(diffs), strings.Join(diffs, "\n"))
	}
	for _, p := range []string{"etc/issue.net", "usr/share/doc/git/README.md", "usr/share/man/man1"} {
		if _, ok := got[p]; ok {
			t.Errorf("%s survived its deletion", p)
		}
	}
}

// hashFileSet hashes the content and Lstat of some files below root.
func hashFileSet(t *testing.T, root string, rels ...string) string {
	h := sha256.New()
	for _, rel := range rels {
		var st unix.Stat_t
		if err := unix.Lstat(filepath.Join(root, rel), &st); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "%s %o %d %d %d\n", rel, st.Mode, st.Uid, st.Gid, st.Mtim.Sec)
		data, _ := os.ReadFile(filepath.Join(root, rel))
		h.Write(data)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// treeDetails describes every entry below root by path: type and mode,
// owner, size, content hash (regular files), link target, device number,
// extended attributes and modification time; and for regular files
// which other paths share its inode.
func treeDetails(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	inodes := map[uint64][]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			return err
		}
		desc := fmt.Sprintf("mode=%o uid=%d gid=%d mtime=%d", st.Mode, st.Uid, st.Gid, st.Mtim.Sec)
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFREG:
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			h := sha256.New()
			_, err = io.Copy(h, f)
			f.Close()
			if err != nil {
				return err
			}
			desc += fmt.Sprintf(" size=%d sha=%x", st.Size, h.Sum(nil)[:8])
			if st.Nlink > 1 {
				inodes[st.Ino] = append(inodes[st.Ino], rel)
			}
		case unix.S_IFLNK:
			target, _ := os.Readlink(p)
			desc += " -> " + target
		case unix.S_IFCHR, unix.S_IFBLK:
			desc += fmt.Sprintf(" rdev=%d", st.Rdev)
		}
		if st.Mode&unix.S_IFMT != unix.S_IFLNK {
			names, err := listXattrs(p)
			if err != nil {
				return err
			}
			sort.Strings(names)
			for _, n := range names {
				v, _ := getXattr(p, n)
				desc += fmt.Sprintf(" %s=%x", n, bytes.TrimRight(v, "\x00"))
			}
		}
		out[rel] = desc
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Hard links inside the image (not to the base, which only one side
	// shares) are part of its content.
	for _, names := range inodes {
		if len(names) > 1 {
			sort.Strings(names)
			for _, n := range names {
				out[n] += " links=" + strings.Join(names, ",")
			}
		}
	}
	return out
}
