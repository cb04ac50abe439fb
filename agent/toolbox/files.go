package toolbox

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/authbench/authbench/sandbox"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"
)

// Limits of the file operations.
const (
	maxListEntries = 1000
	maxGrepMatches = 200
	maxGrepLine    = 300
	maxGrepFiles   = 20000
	maxGrepFile    = 8 << 20
)

// server is the toolbox's state: its options and the shell session.
type server struct {
	o     Options
	shell *shell
	// rules confine the calls once set (OpConfine).
	rules *sandbox.Ruleset
}

func newServer(o Options) *server {
	return &server{o: o, shell: newShell(o)}
}

// abs resolves p against the shell's current directory.
func (s *server) abs(p string) (string, error) {
	if p == "" {
		return "", errors.New("missing path")
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p), nil
	}
	return filepath.Join(s.shell.cwd, p), nil
}

func (s *server) listDir(req Request) Result {
	dir, err := s.abs(orDot(req.Path))
	if err != nil {
		return errorResult(req.ID, err)
	}
	f, err := os.Open(dir)
	if err != nil {
		return errorResult(req.ID, err)
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return errorResult(req.ID, fmt.Errorf("list %s: %w", dir, err))
	}
	sort.Strings(names)
	var b strings.Builder
	shown := min(len(names), maxListEntries)
	for _, name := range names[:shown] {
		b.WriteString(describeEntry(filepath.Join(dir, name), name))
		b.WriteByte('\n')
	}
	res := Result{ID: req.ID}
	if shown < len(names) {
		res.Truncated = true
		fmt.Fprintf(&b, "[... %d more entries not shown (%d in all) ...]\n", len(names)-shown, len(names))
	}
	if len(names) == 0 {
		b.WriteString("(empty directory)\n")
	}
	res.Output = b.String()
	return res
}

// describeEntry is one line of list_dir: name/ for a directory, the size
// of a file, the target of a symbolic link.
func describeEntry(path, name string) string {
	st, err := os.Lstat(path)
	if err != nil {
		return name + " (" + err.Error() + ")"
	}
	switch m := st.Mode(); {
	case m.IsDir():
		return name + "/"
	case m&fs.ModeSymlink != 0:
		target, _ := os.Readlink(path)
		return name + " -> " + target
	case m.IsRegular():
		exec := ""
		if m&0o111 != 0 {
			exec = ", executable"
		}
		return fmt.Sprintf("%s (%d bytes%s)", name, st.Size(), exec)
	default:
		return fmt.Sprintf("%s (%s)", name, m.Type())
	}
}

func orDot(p string) string {
	if p == "" {
		return "."
	}
	return p
}

func (s *server) readFile(req Request) Result {
	path, err := s.abs(req.Path)
	if err != nil {
		return errorResult(req.ID, err)
	}
	if req.Offset < 0 || req.Limit < 0 {
		return errorResult(req.ID, errors.New("offset and limit must not be negative"))
	}
	limit := int64(s.o.MaxOutput)
	if req.Limit > 0 && req.Limit < limit {
		limit = req.Limit
	}
	f, err := os.Open(path)
	if err != nil {
		return errorResult(req.ID, err)
	}
	defer f.Close()
	buf := make([]byte, limit+1)
	n, err := f.ReadAt(buf, req.Offset)
	if err != nil && !errors.Is(err, io.EOF) {
		return errorResult(req.ID, fmt.Errorf("read %s: %w", path, err))
	}
	more := int64(n) > limit
	data := buf[:min(int64(n), limit)]
	res := Result{ID: req.ID, Truncated: more}
	binary := bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(trimPartialRune(data))
	if !binary && more && len(trimPartialRune(data)) > 0 {
		data = trimPartialRune(data) // the next read starts at the cut rune
	}
	end := req.Offset + int64(len(data))
	if binary {
		res.Output = fmt.Sprintf("[binary content: bytes %d..%d, shown as a quoted string]\n%s\n", req.Offset, end, strconv.Quote(string(data)))
	} else {
		res.Output = string(data)
	}
	if more {
		size := ""
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			size = fmt.Sprintf(" of %d", st.Size())
		}
		res.Output += fmt.Sprintf("\n[... shown bytes %d..%d%s; read on with offset=%d ...]\n", req.Offset, end, size, end)
	}
	if len(data) == 0 && req.Offset > 0 {
		res.Output = fmt.Sprintf("[no bytes at offset %d: the file is shorter]\n", req.Offset)
	}
	return res
}

// trimPartialRune drops an incomplete UTF-8 sequence cut at the end of a
// read, so that a text file read in pieces is still text.
func trimPartialRune(b []byte) []byte {
	for i := 1; i < utf8.UTFMax && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			break
		}
	}
	return b
}

func (s *server) writeFile(req Request) Result {
	path, err := s.abs(req.Path)
	if err != nil {
		return errorResult(req.ID, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return errorResult(req.ID, err)
	}
	if _, err := io.WriteString(f, req.Content); err != nil {
		f.Close()
		return errorResult(req.ID, fmt.Errorf("write %s: %w", path, err))
	}
	if err := f.Close(); err != nil {
		return errorResult(req.ID, fmt.Errorf("write %s: %w", path, err))
	}
	return Result{ID: req.ID, Output: fmt.Sprintf("wrote %d bytes to %s", len(req.Content), path)}
}

func (s *server) stat(req Request) Result {
	path, err := s.abs(req.Path)
	if err != nil {
		return errorResult(req.ID, err)
	}
	st, err := os.Lstat(path)
	if err != nil {
		return errorResult(req.ID, err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "path: %s\ntype: %s\nmode: %s (%04o)\nsize: %d\n", path, fileType(st.Mode()), st.Mode(), st.Mode().Perm(), st.Size())
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		fmt.Fprintf(&b, "uid: %d\ngid: %d\n", sys.Uid, sys.Gid)
	}
	fmt.Fprintf(&b, "modified: %s\n", st.ModTime().UTC().Format(time.RFC3339))
	if st.Mode()&fs.ModeSymlink != 0 {
		if target, err := os.Readlink(path); err == nil {
			fmt.Fprintf(&b, "target: %s\n", target)
		}
	}
	return Result{ID: req.ID, Output: b.String()}
}

func fileType(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m.IsRegular():
		return "regular file"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	}
	return m.Type().String()
}

// which finds a program in the shell's first PATH, as a shell would.
func (s *server) which(req Request) Result {
	name := req.Path
	if name == "" {
		return errorResult(req.ID, errors.New("missing program name"))
	}
	var found []string
	if strings.Contains(name, "/") {
		if p, err := s.abs(name); err == nil && isExecutable(p) {
			found = append(found, p)
		}
	} else {
		for _, dir := range filepath.SplitList(lookupEnv(s.o.Env, "PATH", defaultPath)) {
			if dir == "" || !filepath.IsAbs(dir) {
				continue
			}
			if p := filepath.Join(dir, name); isExecutable(p) {
				found = append(found, p)
			}
		}
	}
	if len(found) == 0 {
		return Result{ID: req.ID, Output: name + ": not found", Error: name + ": not found", Errno: "ENOENT"}
	}
	var b strings.Builder
	for _, p := range found {
		b.WriteString(p)
		if real, err := filepath.EvalSymlinks(p); err == nil && real != p {
			b.WriteString(" -> " + real)
		}
		b.WriteByte('\n')
	}
	return Result{ID: req.ID, Output: b.String()}
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}

const defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

func lookupEnv(env []string, key, def string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], key+"="); ok {
			return v
		}
	}
	return def
}
