package lifecycle

import (
	"github.com/authbench/authbench/runapi"

	"os"
	"sort"
	"strconv"
	"strings"
)

// maxCmdline bounds the command line kept per process.
const maxCmdline = 256

// TreeProcesses lists root and its descendants as they are now (host
// PIDs, read from /proc). Orphans are found when they were reparented
// inside the tree: to the init of the tree's PID namespace, or to a
// subreaper in it (sandbox.Launch.WaitTree).
func TreeProcesses(root int) []runapi.Process {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var all []runapi.Process
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone
		}
		p, ok := ParseStat(string(stat))
		if !ok || p.Pid != pid {
			continue
		}
		if cmd, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil {
			p.Cmdline = cmdline(cmd)
		}
		all = append(all, p)
	}
	return Descendants(all, root)
}

// ParseStat reads pid, comm and ppid from the text of /proc/PID/stat
// (comm may hold spaces and parentheses: it ends at the last ")").
func ParseStat(stat string) (runapi.Process, bool) {
	open, end := strings.IndexByte(stat, '('), strings.LastIndexByte(stat, ')')
	if open < 0 || end < open {
		return runapi.Process{}, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(stat[:open]))
	if err != nil {
		return runapi.Process{}, false
	}
	fields := strings.Fields(stat[end+1:])
	if len(fields) < 2 {
		return runapi.Process{}, false
	}
	ppid, err := strconv.Atoi(fields[1])
	if err != nil {
		return runapi.Process{}, false
	}
	return runapi.Process{Pid: pid, PPid: ppid, Comm: stat[open+1 : end]}, true
}

// Descendants returns root and every process below it in procs, by pid.
func Descendants(procs []runapi.Process, root int) []runapi.Process {
	children := map[int][]runapi.Process{}
	var out []runapi.Process
	for _, p := range procs {
		if p.Pid == root {
			out = append(out, p)
		} else {
			children[p.PPid] = append(children[p.PPid], p)
		}
	}
	if len(out) == 0 {
		return nil
	}
	for queue := []int{root}; len(queue) > 0; queue = queue[1:] {
		for _, c := range children[queue[0]] {
			out = append(out, c)
			queue = append(queue, c.Pid)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Pid < out[j].Pid })
	return out
}

func cmdline(raw []byte) string {
	s := strings.TrimRight(strings.ReplaceAll(string(raw), "\x00", " "), " ")
	if len(s) > maxCmdline {
		s = s[:maxCmdline] + "…"
	}
	return s
}
