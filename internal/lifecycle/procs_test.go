package lifecycle

import (
	"os"
	"os/exec"
	"reflect"
	"testing"

	"github.com/authbench/authbench/runapi"
)

func TestParseStat(t *testing.T) {
	for _, tc := range []struct {
		stat string
		want runapi.Process
		ok   bool
	}{
		{"42 (bash) S 7 42 42 0", runapi.Process{Pid: 42, PPid: 7, Comm: "bash"}, true},
		{"43 (a) b (c)) R 1 2 3", runapi.Process{Pid: 43, PPid: 1, Comm: "a) b (c)"}, true},
		{"garbage", runapi.Process{}, false},
		{"44 (x) S", runapi.Process{}, false},
	} {
		got, ok := ParseStat(tc.stat)
		if ok != tc.ok || got != tc.want {
			t.Errorf("ParseStat(%q) = %+v, %v; want %+v, %v", tc.stat, got, ok, tc.want, tc.ok)
		}
	}
}

func TestDescendants(t *testing.T) {
	procs := []runapi.Process{{Pid: 1, PPid: 0}, {Pid: 10, PPid: 1}, {Pid: 11, PPid: 10}, {Pid: 12, PPid: 11}, {Pid: 13, PPid: 1}, {Pid: 14, PPid: 10}}
	got := Descendants(procs, 10)
	want := []runapi.Process{{Pid: 10, PPid: 1}, {Pid: 11, PPid: 10}, {Pid: 12, PPid: 11}, {Pid: 14, PPid: 10}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Descendants = %+v, want %+v", got, want)
	}
	if got := Descendants(procs, 99); got != nil {
		t.Fatalf("Descendants of a gone root = %+v, want nil", got)
	}
}

func TestTreeProcessesFindsGrandchildren(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", "sleep 30 & sleep 30 & wait")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	// A child is in the state the test needs once its exec is complete:
	// its comm changes at the start of exec, its command line only when
	// the new image's arguments are in place (before its exec a forked
	// child still shows the shell's command line).
	execd := func(procs []runapi.Process) bool {
		if len(procs) != 3 {
			return false
		}
		for _, p := range procs[1:] {
			if p.Comm != "sleep" || p.Cmdline != "sleep 30" {
				return false
			}
		}
		return true
	}
	var procs []runapi.Process
	for i := 0; i < 500 && !execd(procs); i++ {
		procs = TreeProcesses(cmd.Process.Pid)
		if !execd(procs) {
			exec.Command("/bin/sleep", "0.01").Run()
		}
	}
	if len(procs) != 3 || procs[0].Pid != cmd.Process.Pid {
		t.Fatalf("tree of %d = %+v, want sh and two sleeps", cmd.Process.Pid, procs)
	}
	for _, p := range procs[1:] {
		if p.Comm != "sleep" || p.Cmdline != "sleep 30" {
			t.Errorf("child %+v: want sleep 30", p)
		}
	}
	if TreeProcesses(os.Getpid())[0].Pid != os.Getpid() {
		t.Fatal("the test's own process is not its tree's first")
	}
}
