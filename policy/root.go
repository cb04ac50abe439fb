package policy

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// maxSymlinkTargetBytes bounds a symlink target read from the environment.
const maxSymlinkTargetBytes = 4096

// Root is an environment root directory used as "/": a task's rootfs, or
// the host's "/". Paths handed to a Root are absolute paths as seen from
// inside the environment; symlinks, including absolute ones, are resolved
// inside it and never escape it.
type Root struct {
	dir string
	// realpaths and links cache Realpath results and the symlinks seen
	// on the way (a Root assumes the tree does not change while it is
	// used); mu guards them, so that one Root may serve concurrent plan
	// compilations (the replays of a verify round). A result is computed
	// outside the lock: two goroutines may both compute it, alike.
	mu        sync.Mutex
	realpaths map[string]string
	links     map[string]linkInfo
}

// linkInfo is what lstat and readlink said of one path.
type linkInfo struct {
	isLink bool
	target string // "" when unreadable
}

// NewRoot returns a Root for the directory dir.
func NewRoot(dir string) (*Root, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, &fs.PathError{Op: "open root", Path: abs, Err: errors.New("not a directory")}
	}
	return &Root{dir: filepath.Clean(abs), realpaths: map[string]string{}, links: map[string]linkInfo{}}, nil
}

// Dir returns the host directory of the root.
func (r *Root) Dir() string { return r.dir }

// HostPath returns where the environment path p lies on the host. It does
// not resolve symlinks: use Realpath first when that matters.
func (r *Root) HostPath(p string) string {
	if r.dir == "/" {
		return p
	}
	if p == "/" {
		return r.dir
	}
	return r.dir + p
}

// Lstat stats the environment path p without following a final symlink.
func (r *Root) Lstat(p string) (fs.FileInfo, error) { return os.Lstat(r.HostPath(p)) }

// Stat stats the environment path p, following symlinks inside the root.
func (r *Root) Stat(p string) (fs.FileInfo, error) { return os.Lstat(r.HostPath(r.Realpath(p))) }

// IsDir reports whether p is a directory after following symlinks.
func (r *Root) IsDir(p string) bool {
	st, err := r.Stat(p)
	return err == nil && st.IsDir()
}

// Realpath resolves every symlink of the clean absolute path p inside the
// root, the way Python's os.path.realpath(strict=False) does: components
// that do not exist are kept as written, and a symlink loop leaves the
// rest of the path unresolved.
func (r *Root) Realpath(p string) string {
	r.mu.Lock()
	rp, ok := r.realpaths[p]
	r.mu.Unlock()
	if ok {
		return rp
	}
	rp, _ = r.joinRealpath("/", p, map[string]*string{})
	r.mu.Lock()
	r.realpaths[p] = rp
	r.mu.Unlock()
	return rp
}

// RealpathNow is Realpath against the tree as it is now: it neither reads
// nor fills the caches, so symlinks created or changed since are seen
// (for judging the events of a running process).
func (r *Root) RealpathNow(p string) string {
	fresh := &Root{dir: r.dir, realpaths: map[string]string{}, links: map[string]linkInfo{}}
	rp, _ := fresh.joinRealpath("/", p, map[string]*string{})
	return rp
}

// Shebang returns the words of the "#!" line of the file p names now
// (symlinks followed inside the root; at most its first 256 bytes are
// read), nil when it has none, is no regular file or cannot be read.
func (r *Root) Shebang(p string) []string {
	host := r.HostPath(r.RealpathNow(p))
	if st, err := os.Lstat(host); err != nil || !st.Mode().IsRegular() {
		return nil // a FIFO would block the open
	}
	f, err := os.OpenFile(host, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	buf := make([]byte, 256)
	n, _ := io.ReadFull(f, buf)
	line, _, _ := strings.Cut(string(buf[:n]), "\n")
	rest, ok := strings.CutPrefix(line, "#!")
	if !ok {
		return nil
	}
	return strings.Fields(rest)
}

// TargetNow says what path p names in the tree now (symlinks followed,
// as an open follows them): a directory, another file, or nothing.
func (r *Root) TargetNow(p string) TargetState {
	info, err := os.Stat(r.HostPath(r.RealpathNow(p)))
	switch {
	case err != nil:
		return TargetMissing
	case info.IsDir():
		return TargetDir
	}
	return TargetFile
}

// joinRealpath appends rest to the already resolved path base.
func (r *Root) joinRealpath(base, rest string, seen map[string]*string) (string, bool) {
	cur := base
	if strings.HasPrefix(rest, "/") {
		cur = "/"
		rest = rest[1:]
	}
	for rest != "" {
		var name string
		name, rest, _ = strings.Cut(rest, "/")
		switch name {
		case "", ".":
			continue
		case "..":
			cur = path.Dir(cur)
			continue
		}
		next := path.Join(cur, name)
		link := r.readLink(next)
		if !link.isLink {
			cur = next
			continue
		}
		if resolved, ok := seen[next]; ok {
			if resolved != nil {
				cur = *resolved
				continue
			}
			return path.Join(next, rest), false // a symlink loop
		}
		seen[next] = nil
		if link.target == "" {
			cur = next
			continue
		}
		var ok bool
		cur, ok = r.joinRealpath(cur, link.target, seen)
		if !ok {
			return path.Join(cur, rest), false
		}
		resolved := cur
		seen[next] = &resolved
	}
	return cur, true
}

// readLink lstats p (an environment path) and reads its target if it is
// a symlink, once per Root.
func (r *Root) readLink(p string) linkInfo {
	r.mu.Lock()
	li, ok := r.links[p]
	r.mu.Unlock()
	if ok {
		return li
	}
	if st, err := os.Lstat(r.HostPath(p)); err == nil && st.Mode()&fs.ModeSymlink != 0 {
		li.isLink = true
		if target, err := os.Readlink(r.HostPath(p)); err == nil && len(target) <= maxSymlinkTargetBytes {
			li.target = target
		}
	}
	r.mu.Lock()
	r.links[p] = li
	r.mu.Unlock()
	return li
}

// maxLinkDepth bounds how many symlinks deep LinksOn follows targets.
const maxLinkDepth = 40

// LinksOn returns the symlinks that resolving the clean absolute path p
// inside the root goes through, in the order they are met, including
// symlinks met while resolving a symlink's target. Each is named by its
// own environment path with its directory already resolved, so it can be
// Lstat'ed. A path without symlinks gives none.
func (r *Root) LinksOn(p string) []string {
	var links []string
	r.linksOn(p, map[string]bool{}, 0, &links)
	return links
}

func (r *Root) linksOn(p string, seen map[string]bool, depth int, links *[]string) {
	cur := "/"
	for _, name := range splitPath(path.Clean(p)) {
		next := path.Join(cur, name)
		li := r.readLink(next)
		if li.isLink {
			if !seen[next] {
				seen[next] = true
				*links = append(*links, next)
				if li.target != "" && depth < maxLinkDepth {
					t := li.target
					if !strings.HasPrefix(t, "/") {
						t = path.Join(cur, t)
					}
					r.linksOn(t, seen, depth+1, links)
				}
			}
			next = r.Realpath(next)
		}
		cur = next
	}
}

// LinksOnNow is LinksOn against the tree as it is now: like RealpathNow
// it neither reads nor fills the caches (for judging the events of a
// running process, whose links may have changed since).
func (r *Root) LinksOnNow(p string) []string {
	fresh := &Root{dir: r.dir, realpaths: map[string]string{}, links: map[string]linkInfo{}}
	return fresh.LinksOn(p)
}
