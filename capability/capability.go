// Package capability is Linux's capabilities as Docker's model names
// them: the names and numbers a confined tree may be granted, Docker's
// (and runc's) default set that Harbor's task agents and verifiers run
// with, and `--caps none|docker|LIST` and task.toml's cap_add/cap_drop
// spellings read into canonical names. Pure data: package sandbox
// applies the set (bounding, ambient and the seccomp filter's "caps"
// conditions), tasks and env read it, the clients check flags with it.
package capability

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// numbers are the capabilities a confined tree may be granted, by name.
var numbers = map[string]int{
	"CAP_CHOWN":              unix.CAP_CHOWN,
	"CAP_DAC_OVERRIDE":       unix.CAP_DAC_OVERRIDE,
	"CAP_DAC_READ_SEARCH":    unix.CAP_DAC_READ_SEARCH,
	"CAP_FOWNER":             unix.CAP_FOWNER,
	"CAP_FSETID":             unix.CAP_FSETID,
	"CAP_KILL":               unix.CAP_KILL,
	"CAP_SETGID":             unix.CAP_SETGID,
	"CAP_SETUID":             unix.CAP_SETUID,
	"CAP_SETPCAP":            unix.CAP_SETPCAP,
	"CAP_LINUX_IMMUTABLE":    unix.CAP_LINUX_IMMUTABLE,
	"CAP_NET_BIND_SERVICE":   unix.CAP_NET_BIND_SERVICE,
	"CAP_NET_BROADCAST":      unix.CAP_NET_BROADCAST,
	"CAP_NET_ADMIN":          unix.CAP_NET_ADMIN,
	"CAP_NET_RAW":            unix.CAP_NET_RAW,
	"CAP_IPC_LOCK":           unix.CAP_IPC_LOCK,
	"CAP_IPC_OWNER":          unix.CAP_IPC_OWNER,
	"CAP_SYS_MODULE":         unix.CAP_SYS_MODULE,
	"CAP_SYS_RAWIO":          unix.CAP_SYS_RAWIO,
	"CAP_SYS_CHROOT":         unix.CAP_SYS_CHROOT,
	"CAP_SYS_PTRACE":         unix.CAP_SYS_PTRACE,
	"CAP_SYS_PACCT":          unix.CAP_SYS_PACCT,
	"CAP_SYS_ADMIN":          unix.CAP_SYS_ADMIN,
	"CAP_SYS_BOOT":           unix.CAP_SYS_BOOT,
	"CAP_SYS_NICE":           unix.CAP_SYS_NICE,
	"CAP_SYS_RESOURCE":       unix.CAP_SYS_RESOURCE,
	"CAP_SYS_TIME":           unix.CAP_SYS_TIME,
	"CAP_SYS_TTY_CONFIG":     unix.CAP_SYS_TTY_CONFIG,
	"CAP_MKNOD":              unix.CAP_MKNOD,
	"CAP_LEASE":              unix.CAP_LEASE,
	"CAP_AUDIT_WRITE":        unix.CAP_AUDIT_WRITE,
	"CAP_AUDIT_CONTROL":      unix.CAP_AUDIT_CONTROL,
	"CAP_SETFCAP":            unix.CAP_SETFCAP,
	"CAP_MAC_OVERRIDE":       unix.CAP_MAC_OVERRIDE,
	"CAP_MAC_ADMIN":          unix.CAP_MAC_ADMIN,
	"CAP_SYSLOG":             unix.CAP_SYSLOG,
	"CAP_WAKE_ALARM":         unix.CAP_WAKE_ALARM,
	"CAP_BLOCK_SUSPEND":      unix.CAP_BLOCK_SUSPEND,
	"CAP_AUDIT_READ":         unix.CAP_AUDIT_READ,
	"CAP_PERFMON":            unix.CAP_PERFMON,
	"CAP_BPF":                unix.CAP_BPF,
	"CAP_CHECKPOINT_RESTORE": unix.CAP_CHECKPOINT_RESTORE,
}

// Numbers turns capability names ("CAP_CHOWN") into their numbers,
// sorted and without duplicates; an unknown name is an error that names
// it.
func Numbers(names []string) ([]int, error) {
	seen := map[int]bool{}
	var unknown []string
	var out []int
	for _, n := range names {
		nr, ok := numbers[n]
		switch {
		case !ok:
			unknown = append(unknown, strconv.Quote(n))
		case !seen[nr]:
			seen[nr] = true
			out = append(out, nr)
		}
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("unknown capabilities %s", strings.Join(unknown, ", "))
	}
	sort.Ints(out)
	return out, nil
}

// Held returns the capabilities a confined tree holds: the granted ones
// (sandbox.Launch.Capabilities); unknown names are left out (Numbers
// reports them). The seccomp compiler uses it for
// Docker profiles' "caps" conditions.
func Held(granted []string) map[string]bool {
	held := map[string]bool{}
	for _, n := range granted {
		if _, ok := numbers[n]; ok {
			held[n] = true
		}
	}
	return held
}

// Docker is Docker's (and runc's) default capability set: what
// a container's root process holds unless told otherwise, and what
// Harbor's task agents and verifiers run with.
var Docker = []string{
	"CAP_AUDIT_WRITE", "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_FSETID",
	"CAP_KILL", "CAP_MKNOD", "CAP_NET_BIND_SERVICE", "CAP_NET_RAW", "CAP_SETFCAP",
	"CAP_SETGID", "CAP_SETPCAP", "CAP_SETUID", "CAP_SYS_CHROOT",
}

// Capability set names accepted by ParseSet.
const (
	SetNone   = "none"
	SetDocker = "docker"
)

// Canonical turns a capability name as Docker accepts it
// ("chown", "CAP_CHOWN", "net_raw") into its canonical form
// ("CAP_CHOWN"); ok is false for a name this table lacks.
func Canonical(name string) (string, bool) {
	n := strings.ToUpper(strings.TrimSpace(name))
	if !strings.HasPrefix(n, "CAP_") {
		n = "CAP_" + n
	}
	_, ok := numbers[n]
	return n, ok
}

// ParseSet reads a capability set as `--caps` takes it: "none"
// (the empty set), "docker" (Docker) or a comma-separated
// list of names in Docker's spellings. The result is canonical, sorted
// and without duplicates, never nil; an unknown name is an error naming
// it. Pure.
func ParseSet(s string) ([]string, error) {
	const want = "want none, docker or a list such as CHOWN,FOWNER"
	switch strings.TrimSpace(s) {
	case SetNone:
		return []string{}, nil
	case SetDocker:
		return slices.Clone(Docker), nil
	case "":
		return nil, fmt.Errorf("empty capability set (%s)", want)
	}
	var names []string
	for _, part := range strings.Split(s, ",") {
		n, ok := Canonical(part)
		if !ok {
			return nil, fmt.Errorf("unknown capability %q (%s)", strings.TrimSpace(part), want)
		}
		names = append(names, n)
	}
	return Sort(names), nil
}

// Sort returns names sorted and without duplicates, never nil.
func Sort(names []string) []string {
	out := slices.Compact(slices.Sorted(slices.Values(names)))
	if out == nil {
		out = []string{}
	}
	return out
}

// Number returns the number of the capability name ("CAP_CHOWN").
func Number(name string) (int, bool) {
	nr, ok := numbers[name]
	return nr, ok
}

// Known is how many capabilities the table names.
func Known() int { return len(numbers) }
