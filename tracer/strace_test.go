package tracer

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/authbench/authbench/tracer/trace"
)

// workload is one entry of the strace-completeness corpus.
type workload struct {
	name  string
	tools []string
	setup func(t *testing.T, dir string)
	argv  func(t *testing.T, dir string) []string
	// check, if set, asserts on the tracer's tuples beyond agreement.
	check func(t *testing.T, dir string, ours map[tuple]bool)
}

func writeFile(t *testing.T, name, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func sh(script string) func(*testing.T, string) []string {
	return func(*testing.T, string) []string { return []string{"/bin/sh", "-c", script} }
}

func py(script string) func(*testing.T, string) []string {
	return func(*testing.T, string) []string { return []string{"python3", "-c", script} }
}

// corpus is the workload list of the issue: shell pipelines, python
// imports, a gcc build, git, relative opens after chdir, dir_fd, a
// symlinked path, a path over 300 characters, a non-UTF-8 name, 8 threads,
// 200 forked children and a failing open.
var corpus = []workload{
	{name: "shell-pipeline", tools: []string{"grep", "sort", "tee"},
		argv: sh(`cat /etc/passwd | grep -c root > count.txt; ls -la . | sort > /dev/null; echo x | tee out2.txt >/dev/null; wc -l < count.txt >> count.txt`)},
	{name: "python-imports", tools: []string{"python3"},
		argv: py(`import json, email.parser, http.client, sqlite3, decimal, xml.dom.minidom`)},
	{name: "gcc-compile-link", tools: []string{"gcc"},
		setup: func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "hello.c"), "#include <stdio.h>\nint main(void){puts(\"hi\");return 0;}\n")
		},
		argv: sh(`gcc -O1 -c hello.c -o hello.o && gcc -o hello hello.o && ./hello >/dev/null`)},
	{name: "git-init-add-commit", tools: []string{"git"},
		argv: sh(`git init -q repo && cd repo && echo hi > a && git add a && git -c user.name=t -c user.email=t@example.com commit -qm first`)},
	{name: "opens-after-chdir", tools: []string{"python3"},
		argv: sh(`mkdir sub && cd sub && echo 1 > f && cat f >/dev/null && cd .. && cat sub/f >/dev/null && ` +
			`python3 -c 'import os; os.chdir("sub"); open("f").read(); os.mkdir("d"); os.rename("d", "e"); os.rmdir("e"); ` +
			`os.symlink("f", "l"); os.link("f", "h"); os.unlink("l"); os.truncate("h", 0); os.chdir(".."); os.chdir("sub/../sub")'`)},
	{name: "python-dir-fd", tools: []string{"python3"},
		setup: func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, "sub", "f"), "data") },
		argv: py(`import os
fd = os.open("sub", os.O_RDONLY | os.O_DIRECTORY)
os.close(os.open("f", os.O_RDONLY, dir_fd=fd))
os.mkdir("newdir", dir_fd=fd)
os.rename("f", "g", src_dir_fd=fd, dst_dir_fd=fd)
os.symlink("g", "lnk", dir_fd=fd)
os.link("g", "hard", src_dir_fd=fd, dst_dir_fd=fd)
os.unlink("lnk", dir_fd=fd)
os.rmdir("newdir", dir_fd=fd)
w = os.open("g", os.O_WRONLY, dir_fd=fd); os.truncate(w, 0); os.close(w)
os.chdir(fd)
open("hard").read()
try:
    os.open("missing", os.O_RDONLY, dir_fd=fd)
except FileNotFoundError:
    pass`)},
	{name: "symlinked-path",
		setup: func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "real", "file"), "x")
			if err := os.Symlink("real", filepath.Join(dir, "link")); err != nil {
				t.Fatal(err)
			}
		},
		argv: sh(`cat link/file >/dev/null; cd link && cat file >/dev/null && cat ../real/file >/dev/null && touch new`)},
	{name: "path-over-300-chars", tools: []string{"python3"},
		argv: py(`import os
parts = ["d%02d-%s" % (i, "x" * 40) for i in range(9)]
deep = os.path.join(*parts)
assert len(os.path.abspath(deep)) > 300
os.makedirs(deep)
with open(os.path.join(deep, "file-" + "y" * 60), "w") as f: f.write("x")
os.chdir(deep)
open("file-" + "y" * 60).read()
os.mkdir("z" * 200)
open("z" * 200 + "/" + "w" * 200, "w").close()`),
		check: func(t *testing.T, dir string, ours map[tuple]bool) {
			long := 0
			for k := range ours {
				if len(k.path) > 300 && k.ok {
					long++
				}
			}
			if long < 4 {
				t.Errorf("only %d successful accesses of paths over 300 characters", long)
			}
		}},
	{name: "non-utf8-name", tools: []string{"python3"},
		argv: py(`import os
d = b"dir-\xff\xfe"
os.mkdir(d)
fd = os.open(d + b"/f\xe9\x80", os.O_CREAT | os.O_WRONLY); os.close(fd)
os.rename(d + b"/f\xe9\x80", d + b"/g\xe9")
os.chdir(d)
open(b"g\xe9").read()
os.unlink(b"g\xe9")
os.chdir(b"..")
os.rmdir(d)`),
		check: func(t *testing.T, dir string, ours map[tuple]bool) {
			want := tuple{"rename>2", dir + "/dir-\xff\xfe/g\xe9", true}
			if !ours[want] {
				t.Errorf("missing %v", want)
			}
		}},
	{name: "eight-threads",
		argv: func(t *testing.T, dir string) []string { return []string{helperBin(t, "threads"), dir} },
		check: func(t *testing.T, dir string, ours map[tuple]bool) {
			if n := countOp(ours, "open", dir+"/t"); n != 400 {
				t.Errorf("%d distinct files opened by the 8 threads, want 400", n)
			}
		}},
	{name: "fork-200-children",
		argv: func(t *testing.T, dir string) []string { return []string{helperBin(t, "forker"), "200", "1", dir} },
		check: func(t *testing.T, dir string, ours map[tuple]bool) {
			if n := countOp(ours, "open", dir+"/"); n != 200 {
				t.Errorf("%d files opened by forked children, want 200", n)
			}
		}},
	{name: "failing-open",
		argv: sh(`cat /nonexistent/missing-file 2>/dev/null; (exec 3</nonexistent-too) 2>/dev/null; true`),
		check: func(t *testing.T, _ string, ours map[tuple]bool) {
			for _, p := range []string{"/nonexistent/missing-file", "/nonexistent-too"} {
				if !ours[tuple{"open", p, false}] {
					t.Errorf("no failed open of %s", p)
				}
			}
		}},
}

// TestStraceAgreement runs each corpus workload under strace -f inside a
// traced tree, so both tracers see the very same run (same temporary names,
// same pids), and requires the set of (op, absolute path, success) seen by
// strace for the workload's processes to equal the tracer's for the same
// processes (strace's own process, the root of the traced tree, excluded).
// parseStrace documents how syscalls are mapped to ops.
func TestStraceAgreement(t *testing.T) {
	needTool(t, "strace")
	straceAgreement(t, loadTracer(t, Options{}), corpus)
}

func straceAgreement(t *testing.T, tr *Tracer, corpus []workload) {
	for _, w := range corpus {
		t.Run(w.name, func(t *testing.T) {
			needTool(t, w.tools...)
			dir := t.TempDir()
			if w.setup != nil {
				w.setup(t, dir)
			}
			work := filepath.Join(dir, "work")
			if err := os.Mkdir(work, 0o755); err != nil {
				t.Fatal(err)
			}
			if w.setup != nil { // setup wrote into dir; run there
				work = dir
			}
			logFile := filepath.Join(t.TempDir(), "strace.log")
			argv := append([]string{"strace", "-f", "-qq", "-xx", "-y", "-s", "65535", "-o", logFile,
				"-e", "trace=" + straceSyscalls, "--"}, w.argv(t, work)...)
			r := runTraced(t, tr, work, argv, nil)
			if r.code != 0 {
				t.Logf("workload exited %d", r.code)
			}
			st, err := parseStrace(logFile, work)
			if err != nil {
				t.Fatalf("parse strace log: %v", err)
			}
			ours := tracerTuples(r, st)
			theirs := map[tuple]bool{}
			for k := range st.tuples {
				theirs[k] = true
			}
			missing, extra := diff(theirs, ours), diff(ours, theirs)
			agree := len(theirs) - len(missing)
			t.Logf("strace %d tuples, tracer %d tuples, agreement %d/%d (events %d, lost %d)",
				len(theirs), len(ours), agree, len(theirs)+len(extra), r.sum.Events, r.sum.Lost)
			if r.sum.Lost != 0 {
				t.Errorf("lost %d events", r.sum.Lost)
			}
			if w.check != nil {
				w.check(t, work, ours)
			}
			if len(missing) > 0 || len(extra) > 0 {
				t.Errorf("tracer misses %d tuples strace saw: %s\ntracer has %d tuples strace did not: %s",
					len(missing), head(missing), len(extra), head(extra))
			}
		})
	}
}

// tracerTuples maps the tracer's events of strace's tracees to tuples.
func tracerTuples(r run, st *straceTrace) map[tuple]bool {
	out := map[tuple]bool{}
	for i := range r.events {
		ev := &r.events[i]
		// Only strace's tracees: not strace itself (the root) nor the
		// short-lived processes it forks to probe ptrace features.
		if !st.pids[ev.PID] || ev.TGID == r.root || ev.Op == trace.OpFork || ev.Op == trace.OpExit {
			continue
		}
		if ev.Op == trace.OpMmap && ev.Syscall != "mmap" {
			continue // strace cannot name an mprotect's file
		}
		ok := !ev.Failed()
		add := func(op, p string) {
			if st.unknown[tuple{op, p, false}] {
				return
			}
			out[tuple{op, p, ok}] = true
		}
		add(string(ev.Op), ev.Path)
		if ev.Path2 != "" {
			add(string(ev.Op)+">2", ev.Path2)
		}
	}
	return out
}

func countOp(ts map[tuple]bool, op, prefix string) int {
	n := 0
	for k := range ts {
		if k.op == op && k.ok && strings.HasPrefix(k.path, prefix) {
			n++
		}
	}
	return n
}

func diff(a, b map[tuple]bool) []string {
	var out []string
	for k := range a {
		if !b[k] {
			out = append(out, k.String())
		}
	}
	slices.Sort(out)
	return out
}

func head(s []string) string {
	if len(s) > 15 {
		s = append(s[:15:15], fmt.Sprintf("... %d more", len(s)-15))
	}
	return "\n  " + strings.Join(s, "\n  ")
}
