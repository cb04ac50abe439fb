package policy

import (
	"encoding/binary"
	"path"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The scorer's walk lists a scored root as Python's os.walk lists it
// (symlinks to directories neither listed nor followed; symlinks to files,
// dangling symlinks and special files listed; unreadable directories
// skipped), reading directories with getdents into reused buffers and
// opening each subdirectory relative to its parent. Names handed to the
// callbacks are valid only during the call.

// maxHeldDirFDs bounds the directory descriptors a walk holds open (one
// per level); deeper levels are opened by path.
const maxHeldDirFDs = 128

// walker walks one environment directory tree.
type walker struct {
	root *Root
	// env and real are the environment path of the current directory and
	// its realpath inside the root, built in place.
	env, real []byte
	bufs      [][]byte // getdents buffers, one per depth
	// visit is called with each non-directory entry: its environment
	// path, the realpath of its directory, its name and its d_type.
	visit func(env string, realDir string, name string, typ uint8)
}

// eachFile calls fn with every non-directory entry below the environment
// directory dir, or with dir itself when it is not a directory (nothing
// when it does not exist).
func (r *Root) eachFile(dir string, fn func(p string)) {
	r.eachEntry(dir, func(env, realDir, name string, typ uint8) {
		if typ == unix.DT_LNK && r.isDirFrom(realDir, name) {
			return
		}
		fn(env)
	}, fn)
}

// eachExecutable calls fn with the realpath of every entry below the
// environment directory dir (or of dir itself when it is not a directory)
// that is, after following symlinks, a non-directory with an execute bit:
// what access(X_OK) says for root.
func (r *Root) eachExecutable(dir string, fn func(real string)) {
	r.eachEntry(dir, func(env, realDir, name string, typ uint8) {
		real := realDir + "/" + name
		if realDir == "/" {
			real = "/" + name
		}
		if typ == unix.DT_LNK {
			real, _ = r.joinRealpath(strings.Clone(realDir), name, map[string]*string{})
		}
		if r.isExecutableReal(real) {
			fn(real)
		}
	}, func(p string) {
		if real := r.Realpath(p); r.isExecutableReal(real) {
			fn(real)
		}
	})
}

// isExecutableReal reports whether the resolved environment path real is
// a non-directory with an execute bit.
func (r *Root) isExecutableReal(real string) bool {
	var st unix.Stat_t
	if unix.Lstat(r.HostPath(real), &st) != nil {
		return false
	}
	return st.Mode&unix.S_IFMT != unix.S_IFDIR && st.Mode&0o111 != 0
}

// isDirFrom reports whether the entry name of the resolved environment
// directory realDir is, after following symlinks, a directory.
func (r *Root) isDirFrom(realDir, name string) bool {
	real, _ := r.joinRealpath(strings.Clone(realDir), name, map[string]*string{})
	var st unix.Stat_t
	return unix.Lstat(r.HostPath(real), &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR
}

// eachEntry walks the environment directory dir (resolved inside the
// root), calling entry for every non-directory entry below it; when dir
// is not a directory, it calls single with dir (nothing when dir does not
// exist).
func (r *Root) eachEntry(dir string, entry func(env, realDir, name string, typ uint8), single func(string)) {
	real := r.Realpath(dir)
	var st unix.Stat_t
	if unix.Lstat(r.HostPath(real), &st) != nil {
		return
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		single(dir)
		return
	}
	fd, err := unix.Open(r.HostPath(real), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	w := &walker{root: r, env: []byte(dir), real: []byte(real), visit: entry}
	w.walk(fd, 0)
}

// walk lists the directory open at fd (closing it), recursing into real
// subdirectories.
func (w *walker) walk(fd, depth int) {
	if depth == len(w.bufs) {
		w.bufs = append(w.bufs, make([]byte, 32<<10))
	}
	buf := w.readAll(fd, depth)
	if depth >= maxHeldDirFDs {
		unix.Close(fd)
		fd = -1
	} else {
		defer unix.Close(fd)
	}
	envLen, realLen := len(w.env), len(w.real)
	for off := 0; off < len(buf); {
		reclen := int(binary.NativeEndian.Uint16(buf[off+16:]))
		typ := buf[off+18]
		name := buf[off+19 : off+reclen]
		if i := indexNUL(name); i >= 0 {
			name = name[:i]
		}
		off += reclen
		if len(name) == 0 || string(name) == "." || string(name) == ".." {
			continue
		}
		if typ == unix.DT_UNKNOWN {
			typ = w.typeOf(fd, name)
		}
		w.env = appendName(w.env[:envLen], name)
		w.real = appendName(w.real[:realLen], name)
		if typ == unix.DT_DIR {
			if sub, err := w.openSub(fd, name); err == nil {
				w.walk(sub, depth+1)
			}
			continue
		}
		w.visit(viewString(w.env), viewString(w.real[:realLen]), viewString(name), typ)
	}
	w.env, w.real = w.env[:envLen], w.real[:realLen]
}

// readAll reads every entry of the directory into the depth's buffer,
// growing it as needed; an error ends the listing with what was read.
func (w *walker) readAll(fd, depth int) []byte {
	buf := w.bufs[depth]
	n := 0
	for {
		if len(buf)-n < 8<<10 {
			buf = append(buf, make([]byte, len(buf))...)
			w.bufs[depth] = buf
		}
		got, err := unix.Getdents(fd, buf[n:])
		if err != nil || got <= 0 {
			return buf[:n]
		}
		n += got
	}
}

// openSub opens the subdirectory name of the directory open at fd
// (fd < 0: by the path just built), without following a symlink.
func (w *walker) openSub(fd int, name []byte) (int, error) {
	const flags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	if fd < 0 {
		return unix.Open(w.root.HostPath(string(w.real)), flags, 0)
	}
	return unix.Openat(fd, string(name), flags, 0)
}

// typeOf is the d_type of an entry whose file system did not say.
func (w *walker) typeOf(fd int, name []byte) uint8 {
	var st unix.Stat_t
	var err error
	if fd < 0 {
		err = unix.Lstat(w.root.HostPath(string(w.real)), &st)
	} else {
		err = unix.Fstatat(fd, string(name), &st, unix.AT_SYMLINK_NOFOLLOW)
	}
	if err != nil {
		return unix.DT_REG // listed, as os.walk lists what it cannot stat
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		return unix.DT_DIR
	case unix.S_IFLNK:
		return unix.DT_LNK
	}
	return unix.DT_REG
}

func appendName(dir []byte, name []byte) []byte {
	if len(dir) == 0 || dir[len(dir)-1] != '/' {
		dir = append(dir, '/')
	}
	return append(dir, name...)
}

func indexNUL(b []byte) int {
	for i, c := range b {
		if c == 0 {
			return i
		}
	}
	return -1
}

// viewString is b as a string without a copy; valid while b is unchanged.
func viewString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// walkedByAnother reports whether the walk of another scored root of the
// list already lists every candidate of roots[i]: it lies strictly below
// that root with only real directories between them, and is not itself a
// symlink to a directory (whose files that walk would not list). Two
// walks otherwise never list a same path, so skipping the covered roots
// makes the candidates of an axis unique without storing them.
func (r *Root) walkedByAnother(dir string, roots []Pattern, i int) bool {
	for j, other := range roots {
		a := other.Base()
		if j == i || !isWithin(dir, a) || dir == a && j > i {
			continue
		}
		if dir == a || r.reachableBelow(a, dir) {
			return true
		}
	}
	return false
}

// reachableBelow reports whether a walk of the environment directory top
// lists the path p below it: every component between them is a real
// directory and p is not a symlink to a directory.
func (r *Root) reachableBelow(top, p string) bool {
	cur := r.Realpath(top)
	var st unix.Stat_t
	if unix.Lstat(r.HostPath(cur), &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return false
	}
	rel := strings.TrimPrefix(strings.TrimPrefix(p, top), "/")
	names := strings.Split(rel, "/")
	for k, name := range names {
		cur = path.Join(cur, name)
		if unix.Lstat(r.HostPath(cur), &st) != nil {
			return false
		}
		switch mode := st.Mode & unix.S_IFMT; {
		case k < len(names)-1 && mode != unix.S_IFDIR:
			return false
		case k == len(names)-1 && mode == unix.S_IFLNK:
			return !r.isDirFrom(path.Dir(cur), name)
		}
	}
	return true
}
