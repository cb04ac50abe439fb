package toolbox

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	os.WriteFile(filepath.Join(dir, "big.txt"), big, 0o644)
	os.WriteFile(filepath.Join(dir, "bin"), []byte("ab\x00\xffcd"), 0o644)
	os.WriteFile(filepath.Join(dir, "small.txt"), []byte("héllo\n"), 0o644)
	c := serve(t, Options{Dir: dir, MaxOutput: 8192})

	r := call(t, c, Request{Op: OpReadFile, Path: "big.txt"})
	if !r.Truncated || !strings.HasPrefix(r.Output, string(big[:8192])) || !strings.Contains(r.Output, "shown bytes 0..8192 of 1048576; read on with offset=8192") {
		t.Errorf("huge file: truncated %v, tail %q", r.Truncated, r.Output[8192:])
	}
	if len(r.Output) > 8192+200 {
		t.Errorf("huge file read returned %d bytes", len(r.Output))
	}
	r = call(t, c, Request{Op: OpReadFile, Path: filepath.Join(dir, "big.txt"), Offset: 1<<20 - 5, Limit: 100})
	if r.Output != "bcdef" || r.Truncated {
		t.Errorf("tail of the file: %+v", r)
	}
	if r = call(t, c, Request{Op: OpReadFile, Path: "small.txt", Limit: 2}); r.Output != "h\n[... shown bytes 0..1 of 7; read on with offset=1 ...]\n" {
		t.Errorf("cut inside a rune: %q", r.Output)
	}
	if r = call(t, c, Request{Op: OpReadFile, Path: "small.txt"}); r.Output != "héllo\n" {
		t.Errorf("small: %q", r.Output)
	}
	if r = call(t, c, Request{Op: OpReadFile, Path: "bin"}); !strings.Contains(r.Output, "binary content") || !strings.Contains(r.Output, `"ab\x00\xffcd"`) {
		t.Errorf("binary: %q", r.Output)
	}
	if r = call(t, c, Request{Op: OpReadFile, Path: "missing"}); r.Errno != "ENOENT" || !strings.Contains(r.Error, "open "+dir+"/missing: no such file or directory") {
		t.Errorf("missing: %+v", r)
	}
	if r = call(t, c, Request{Op: OpReadFile, Path: "small.txt", Offset: -1}); r.Error == "" {
		t.Errorf("negative offset: %+v", r)
	}
	if r = call(t, c, Request{Op: OpReadFile, Path: dir}); r.Errno != "EISDIR" {
		t.Errorf("directory: %+v", r)
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	c := serve(t, Options{Dir: dir})
	if r := call(t, c, Request{Op: OpWriteFile, Path: "a.txt", Content: "long content\n"}); r.Error != "" {
		t.Fatal(r.Error)
	}
	if r := call(t, c, Request{Op: OpWriteFile, Path: "a.txt", Content: "short"}); r.Output != "wrote 5 bytes to "+dir+"/a.txt" {
		t.Errorf("output %q", r.Output)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(data) != "short" {
		t.Errorf("not truncated: %q", data)
	}
	if r := call(t, c, Request{Op: OpWriteFile, Path: "no/parent.txt", Content: "x"}); r.Errno != "ENOENT" {
		t.Errorf("parent created? %+v", r)
	}
	// relative paths follow the shell's directory
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	shellCall(t, c, "cd sub", 0)
	call(t, c, Request{Op: OpWriteFile, Path: "b.txt", Content: "b"})
	if _, err := os.Stat(filepath.Join(dir, "sub", "b.txt")); err != nil {
		t.Errorf("relative path: %v", err)
	}
}

func TestListStatWhichGrep(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "d"), 0o755)
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("alpha\nbeta\ngamma beta\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "d", "g.go"), []byte("package beta\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "d", "blob"), []byte("beta\x00"), 0o644)
	os.Symlink("f.txt", filepath.Join(dir, "link"))
	c := serve(t, Options{Dir: dir})

	r := call(t, c, Request{Op: OpListDir})
	if r.Output != "d/\nf.txt (22 bytes)\nlink -> f.txt\n" {
		t.Errorf("list_dir: %q", r.Output)
	}
	if r = call(t, c, Request{Op: OpListDir, Path: "nope"}); r.Errno != "ENOENT" {
		t.Errorf("list_dir missing: %+v", r)
	}
	r = call(t, c, Request{Op: OpStat, Path: "link"})
	if !strings.Contains(r.Output, "type: symbolic link") || !strings.Contains(r.Output, "target: f.txt") {
		t.Errorf("stat: %q", r.Output)
	}
	r = call(t, c, Request{Op: OpWhich, Path: "sh"})
	if !strings.Contains(r.Output, "/sh") || r.Error != "" {
		t.Errorf("which sh: %+v", r)
	}
	if r = call(t, c, Request{Op: OpWhich, Path: "no-such-program-xyz"}); r.Errno != "ENOENT" {
		t.Errorf("which missing: %+v", r)
	}
	r = call(t, c, Request{Op: OpGrep, Pattern: `\bbeta\b`})
	want := dir + "/d/g.go:1:package beta\n" + dir + "/f.txt:2:beta\n" + dir + "/f.txt:3:gamma beta\n[1 binary files not searched]\n"
	if r.Output != want {
		t.Errorf("grep dir: %q, want %q", r.Output, want)
	}
	if r = call(t, c, Request{Op: OpGrep, Pattern: "beta", Path: "f.txt", Limit: 1}); !r.Truncated || !strings.Contains(r.Output, "stopped after 1 matches") {
		t.Errorf("grep limit: %+v", r)
	}
	if r = call(t, c, Request{Op: OpGrep, Pattern: "("}); !strings.Contains(r.Error, "missing closing )") {
		t.Errorf("bad pattern: %+v", r)
	}
	if r = call(t, c, Request{Op: OpGrep, Pattern: "zzz"}); !strings.HasPrefix(r.Output, "no matches\n") {
		t.Errorf("no match: %q", r.Output)
	}
}

// TestProtocolBadInput: every bad line gets an answer, and the toolbox
// goes on.
func TestProtocolBadInput(t *testing.T) {
	inR, inW := io.Pipe()
	var out bytes.Buffer
	done := make(chan error)
	go func() { done <- Serve(inR, &out, Options{Dir: t.TempDir()}) }()
	lines := []string{
		`not json`,
		`{"id": 7, "op": "frobnicate"}`,
		`{"id": 8, "op": "read_file", "path": 3}`,
		"",
		`{"id": 9, "op": "stat", "path": "/"}`,
		`{"id": 12, "op": "ping"}`,
		`{"id":10,"op":"write_file","content":"` + strings.Repeat("x", MaxRequestBytes) + `"}`,
		`{"id": 11, "op": "stat", "path": "/"}`,
	}
	go func() {
		for _, l := range lines {
			io.WriteString(inW, l+"\n")
		}
		inW.Close()
	}()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := []string{`"id":0,"output":"error: bad request: invalid character`, `"id":7,"output":"error: unknown op \"frobnicate\""`,
		`"id":8,"output":"error: bad request: json: cannot unmarshal number`, `"id":9,"output":"path: /`, `"id":12,"output":"pong"`,
		`"id":0,"output":"error: request longer than 16777216 bytes"`, `"id":11,"output":"path: /`}
	if len(got) != len(want) {
		t.Fatalf("%d answers for %d requests: %s", len(got), len(want), out.String())
	}
	for i := range want {
		if !strings.Contains(got[i], want[i]) {
			t.Errorf("answer %d: %s, want %s", i, got[i], want[i])
		}
	}
}
