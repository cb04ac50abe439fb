package daemon

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// confinement is what /proc/PID/status says about a process's sandbox.
type confinement struct {
	// NoNewPrivs is set by every sandbox-init tree (and by
	// no_new_privs services and containers).
	NoNewPrivs bool
	// Seccomp is the seccomp mode (0: none, 1: strict, 2: filter).
	Seccomp int
}

// parseConfinement reads the NoNewPrivs and Seccomp lines of a
// /proc/PID/status; both must be there.
func parseConfinement(status string) (confinement, error) {
	var c confinement
	var haveNNP, haveSeccomp bool
	for _, line := range strings.Split(status, "\n") {
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		val = strings.TrimSpace(val)
		switch key {
		case "NoNewPrivs":
			n, err := strconv.Atoi(val)
			if err != nil {
				return c, fmt.Errorf("bad NoNewPrivs %q", val)
			}
			c.NoNewPrivs, haveNNP = n != 0, true
		case "Seccomp":
			n, err := strconv.Atoi(val)
			if err != nil {
				return c, fmt.Errorf("bad Seccomp %q", val)
			}
			c.Seccomp, haveSeccomp = n, true
		}
	}
	if !haveNNP || !haveSeccomp {
		return c, fmt.Errorf("no NoNewPrivs or Seccomp line")
	}
	return c, nil
}

// pidNamespace returns the inode of /proc/PID/ns/pid (pid "self" for the
// daemon).
func pidNamespace(pid string) (uint64, error) {
	var st unix.Stat_t
	if err := unix.Stat("/proc/"+pid+"/ns/pid", &st); err != nil {
		return 0, err
	}
	return st.Ino, nil
}

// checkUnconfined refuses a peer that runs confined: with no_new_privs,
// with a seccomp filter, or in another PID namespace than the daemon's.
// Every daemon run and task container is so, and Landlock (ABI < 9)
// cannot keep them from connecting to the socket: without this a
// confined tree could ask the daemon for an unconfined run.
//
// The peer's /proc entry is read by pid, so the pidfd the kernel gave
// for the connecting process (SO_PEERPIDFD) is checked first to name
// that pid and, after the reads, to be still alive: then the pid was
// not reused in between and the reads describe the peer. Whatever
// cannot be read or confirmed is a refusal.
func (a *Authorizer) checkUnconfined(p Peer, pidfd int) *ForbiddenError {
	if p.PID <= 0 {
		return forbidden(RuleForeignPIDNamespace, "the caller's process is not visible in the daemon's pid namespace")
	}
	info := unix.PidfdInfo{Mask: unix.PIDFD_INFO_PID}
	if err := unix.IoctlPidfdInfo(pidfd, &info); err != nil {
		return forbidden(RulePeerUnverified, "pid %d: cannot identify the caller's process (pidfd): %v", p.PID, err)
	}
	if int32(info.Tgid) != p.PID {
		return forbidden(RulePeerUnverified, "pid %d: the caller's pidfd names pid %d", p.PID, info.Tgid)
	}
	pid := strconv.Itoa(int(p.PID))
	status, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return forbidden(RulePeerUnverified, "pid %d: cannot read its status: %v", p.PID, err)
	}
	conf, err := parseConfinement(string(status))
	if err != nil {
		return forbidden(RulePeerUnverified, "pid %d: /proc/%s/status: %v", p.PID, pid, err)
	}
	ns, err := pidNamespace(pid)
	if err != nil {
		return forbidden(RulePeerUnverified, "pid %d: cannot read its pid namespace: %v", p.PID, err)
	}
	if err := unix.PidfdSendSignal(pidfd, 0, nil, 0); err != nil {
		return forbidden(RulePeerUnverified, "pid %d: the caller's process ended before it could be verified: %v", p.PID, err)
	}
	switch {
	case conf.NoNewPrivs:
		return forbidden(RuleConfinedNoNewPrivs, "pid %d runs with no_new_privs (a confined tree may not use the daemon)", p.PID)
	case conf.Seccomp != 0:
		return forbidden(RuleConfinedSeccomp, "pid %d runs under seccomp mode %d (a confined tree may not use the daemon)", p.PID, conf.Seccomp)
	case ns != a.pidNS:
		return forbidden(RuleForeignPIDNamespace, "pid %d is in another pid namespace than the daemon (a run or container may not use the daemon)", p.PID)
	}
	return nil
}
