package tracer

import (
	"bufio"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// This file parses `strace -f -qq -xx -y -s 65535` output into the same
// (op, absolute path, success) tuples the tracer produces, so the two can
// be compared. Normalisation (see TestStraceAgreement):
//
//   - open, openat, openat2, creat                  → open
//   - execve, execveat                              → exec
//   - mkdir, mkdirat                                → mkdir
//   - unlink, unlinkat (no AT_REMOVEDIR)            → unlink
//   - rmdir, unlinkat with AT_REMOVEDIR             → rmdir
//   - rename, renameat, renameat2                   → rename (old) and rename>2 (new)
//   - link, linkat                                  → link (old) and link>2 (new)
//   - symlink, symlinkat                            → symlink (the link) and symlink>2
//     (its target, resolved against the link's directory)
//   - truncate, ftruncate                           → truncate
//   - chdir, fchdir                                 → chdir
//
// Relative paths are resolved against the directory strace shows for the
// dirfd or AT_FDCWD (-y), or, for the calls without a dirfd, against the
// cwd tracked per process (inherited at clone, updated by chdir/fchdir and
// by every AT_FDCWD decoration). Everything is cleaned lexically. Calls
// whose result strace could not see (" = ?") are left out of both sides.

// tuple is one comparable access.
type tuple struct {
	op   string
	path string
	ok   bool
}

func (t tuple) String() string {
	return fmt.Sprintf("%s %q ok=%v", t.op, t.path, t.ok)
}

// straceTrace is what parseStrace found.
type straceTrace struct {
	tuples  map[tuple]int
	unknown map[tuple]bool // op+path with an unknown result (ok=false)
	pids    map[int]bool
}

// straceSyscalls is the -e trace= list.
const straceSyscalls = "open,openat,openat2,creat,execve,execveat,mkdir,mkdirat,unlink,unlinkat,rmdir," +
	"rename,renameat,renameat2,link,linkat,symlink,symlinkat,truncate,ftruncate,chdir,fchdir," +
	"clone,clone3,fork,vfork,mmap,chown,fchown,lchown,fchownat,chmod,fchmod,fchmodat,setxattr,lsetxattr," +
	"fsetxattr,removexattr,lremovexattr,fremovexattr,mknod,mknodat,setuid,setgid,setreuid,setregid," +
	"setresuid,setresgid,setgroups,setfsuid,setfsgid" // strace 6.1 knows neither fchmodat2 nor *xattrat

func parseStrace(logFile, startDir string) (*straceTrace, error) {
	f, err := os.Open(logFile)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st := &straceTrace{tuples: map[tuple]int{}, unknown: map[tuple]bool{}, pids: map[int]bool{}}
	cwd := map[int]string{}
	pending := map[int]string{}
	first := true
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Text()
		sp := strings.IndexByte(line, ' ')
		if sp < 0 {
			continue
		}
		pid, err := strconv.Atoi(line[:sp])
		if err != nil {
			continue
		}
		rest := strings.TrimLeft(line[sp+1:], " ")
		if first {
			cwd[pid] = startDir
			first = false
		}
		st.pids[pid] = true
		switch {
		case strings.HasPrefix(rest, "+++") || strings.HasPrefix(rest, "---"):
			continue
		case strings.HasPrefix(rest, "<... "):
			i := strings.Index(rest, "resumed>")
			if i < 0 {
				return nil, fmt.Errorf("bad resumed line %q", line)
			}
			rest = pending[pid] + rest[i+len("resumed>"):]
			delete(pending, pid)
		case strings.HasSuffix(rest, " <unfinished ...>"):
			pending[pid] = strings.TrimSuffix(rest, " <unfinished ...>")
			continue
		}
		if err := st.add(pid, rest, cwd); err != nil {
			return nil, fmt.Errorf("%w in line %q", err, line)
		}
	}
	return st, sc.Err()
}

// add interprets one complete syscall line of pid.
func (st *straceTrace) add(pid int, call string, cwd map[int]string) error {
	open := strings.IndexByte(call, '(')
	eq := strings.LastIndex(call, " = ")
	if open < 0 || eq < 0 {
		return fmt.Errorf("unparsed call")
	}
	name := call[:open]
	argStr := strings.TrimRight(call[open+1:eq], " ")
	argStr = strings.TrimSuffix(argStr, ")")
	ret := strings.TrimSpace(call[eq+3:])
	args := splitArgs(argStr)
	if _, ok := cwd[pid]; !ok {
		cwd[pid] = "/" // a process whose clone we did not see (not expected)
	}
	// Any AT_FDCWD<dir> decoration tells the current directory.
	for _, a := range args {
		if strings.HasPrefix(a, "AT_FDCWD<") {
			cwd[pid] = unhex(a[len("AT_FDCWD<") : len(a)-1])
		}
	}
	known := ret != "?" && !strings.HasPrefix(ret, "? ")
	ok := known && !strings.HasPrefix(ret, "-")
	arg := func(i int) string {
		if i < len(args) {
			return args[i]
		}
		return ""
	}
	base := func(dirArg string) string {
		if i := strings.IndexByte(dirArg, '<'); i >= 0 && strings.HasSuffix(dirArg, ">") {
			return unhex(dirArg[i+1 : len(dirArg)-1])
		}
		return cwd[pid]
	}
	abs := func(dir, p string) string {
		p = unquote(p)
		if strings.HasPrefix(p, "/") {
			return path.Clean(p)
		}
		return path.Clean(dir + "/" + p)
	}
	emit := func(op, p string) {
		t := tuple{op, p, ok}
		if !known {
			st.unknown[tuple{op, p, false}] = true
			return
		}
		st.tuples[t]++
	}
	here := cwd[pid]
	switch name {
	case "clone", "clone3", "fork", "vfork":
		if child, err := strconv.Atoi(strings.Fields(ret + " x")[0]); err == nil && child > 0 {
			cwd[child] = here
		}
	case "open", "creat":
		emit("open", abs(here, arg(0)))
	case "openat", "openat2":
		emit("open", abs(base(arg(0)), arg(1)))
	case "execve":
		emit("exec", abs(here, arg(0)))
	case "execveat":
		emit("exec", abs(base(arg(0)), arg(1)))
	case "mkdir":
		emit("mkdir", abs(here, arg(0)))
	case "mkdirat":
		emit("mkdir", abs(base(arg(0)), arg(1)))
	case "unlink":
		emit("unlink", abs(here, arg(0)))
	case "rmdir":
		emit("rmdir", abs(here, arg(0)))
	case "unlinkat":
		op := "unlink"
		if strings.Contains(arg(2), "AT_REMOVEDIR") {
			op = "rmdir"
		}
		emit(op, abs(base(arg(0)), arg(1)))
	case "rename", "link":
		emit(name, abs(here, arg(0)))
		emit(name+">2", abs(here, arg(1)))
	case "renameat", "renameat2", "linkat":
		op := strings.TrimSuffix(strings.TrimSuffix(name, "2"), "at")
		emit(op, abs(base(arg(0)), arg(1)))
		emit(op+">2", abs(base(arg(2)), arg(3)))
	case "symlink", "symlinkat":
		var link string
		if name == "symlink" {
			link = abs(here, arg(1))
		} else {
			link = abs(base(arg(1)), arg(2))
		}
		emit("symlink", link)
		emit("symlink>2", abs(path.Dir(link), arg(0)))
	case "truncate":
		emit("truncate", abs(here, arg(0)))
	case "ftruncate":
		emit("truncate", base(arg(0)))
	case "chdir":
		p := abs(here, arg(0))
		emit("chdir", p)
		if ok {
			if real, err := filepath.EvalSymlinks(p); err == nil {
				p = real
			}
			cwd[pid] = p
		}
	case "fchdir":
		emit("chdir", base(arg(0)))
		if ok {
			cwd[pid] = base(arg(0))
		}
	case "mmap": // of a file (fd<path>), executable
		if strings.Contains(arg(2), "PROT_EXEC") && strings.HasSuffix(arg(4), ">") {
			emit("mmap", base(arg(4)))
		}
	case "chown", "lchown", "chmod", "setxattr", "lsetxattr", "removexattr", "lremovexattr", "mknod":
		emit(capOp(name), abs(here, arg(0)))
	case "fchownat", "fchmodat", "mknodat":
		emit(capOp(name), abs(base(arg(0)), arg(1)))
	case "fchown", "fchmod", "fsetxattr", "fremovexattr":
		emit(capOp(name), base(arg(0)))
	case "setuid", "setgid", "setreuid", "setregid", "setresuid", "setresgid", "setgroups", "setfsuid", "setfsgid":
		emit("setid", "")
	}
	return nil
}

// capOp is the tracer's op of a capability-family syscall.
func capOp(name string) string {
	switch {
	case strings.Contains(name, "chown"):
		return "chown"
	case strings.Contains(name, "chmod"):
		return "chmod"
	case strings.Contains(name, "xattr"):
		return "setxattr"
	}
	return "mknod"
}

// splitArgs splits strace's argument list at top-level commas.
func splitArgs(s string) []string {
	var out []string
	depth, start := 0, 0
	inStr := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inStr:
			if c == '\\' {
				i++
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '[' || c == '{' || c == '(' || c == '<':
			depth++
		case c == ']' || c == '}' || c == ')' || c == '>':
			depth--
		case c == ',' && depth == 0:
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// unquote decodes a -xx string literal ("\x2f\x74..." possibly followed
// by "..." when truncated, which -s 65535 prevents).
func unquote(s string) string {
	s = strings.TrimSuffix(s, "...")
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return s
	}
	return unhex(s[1 : len(s)-1])
}

// unhex decodes \xNN escapes (strace -xx prints every byte so).
func unhex(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s)+0 && s[i+1] == 'x' {
			if v, err := strconv.ParseUint(s[i+2:i+4], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
