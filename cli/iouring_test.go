package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// ioUringProg tries io_uring_setup and, when the kernel refuses it with
// ENOSYS, falls back to open(2) of its argument, as liburing users do.
const ioUringProg = `package main

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"
)

func main() {
	var params [120]byte // struct io_uring_params
	_, _, errno := syscall.Syscall(425, 8, uintptr(unsafe.Pointer(&params[0])), 0) // io_uring_setup
	if errno == 0 {
		fmt.Println("io_uring available")
		return
	}
	fmt.Println("io_uring_setup:", errno == syscall.ENOSYS, errno)
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	f.Close()
}
`

// TestTraceHasNoIOUring: under `authbench trace` (no seccomp profile)
// io_uring_setup fails with ENOSYS, and the open the program falls back
// to is in the trace.
func TestTraceHasNoIOUring(t *testing.T) {
	bin := benchBinary(t)
	dir := t.TempDir()
	src := writeFile(t, dir, "main.go", ioUringProg)
	prog := filepath.Join(dir, "uring")
	build := exec.Command("go", "build", "-o", prog, src)
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-buildvcs=false", "GO111MODULE=off")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	marker := writeFile(t, dir, "fallback-marker.txt", "x")
	out := filepath.Join(dir, "events.jsonl")
	code, stdout, stderr := runBinary(t, bin, "", "trace", "--out", out, "--", prog, marker)
	if code != 0 || !strings.HasPrefix(stdout, "io_uring_setup: true") {
		t.Fatalf("exit %d, stdout %q, stderr %q: want io_uring_setup to fail with ENOSYS", code, stdout, stderr)
	}
	events, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(events), `"op":"open","path":"`+marker+`"`) {
		t.Fatalf("the fallback open of %s is not in the trace:\n%s", marker, events)
	}
}
