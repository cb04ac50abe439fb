package sandbox

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/policy"
)

// capabilityNumbers are the capabilities Spec.Capabilities may name.
var capabilityNumbers = map[string]int{
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

// ParseCapabilities turns capability names ("CAP_CHOWN") into their
// numbers, sorted and without duplicates; an unknown name is an error
// that names it.
func ParseCapabilities(names []string) ([]int, error) {
	seen := map[int]bool{}
	var unknown []string
	var out []int
	for _, n := range names {
		nr, ok := capabilityNumbers[n]
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

// HeldCapabilities returns the capabilities a confined tree holds: the
// granted ones (Spec.Capabilities); unknown names are left out
// (ParseCapabilities reports them). The seccomp compiler uses it for
// Docker profiles' "caps" conditions.
func HeldCapabilities(granted []string) map[string]bool {
	held := map[string]bool{}
	for _, n := range granted {
		if _, ok := capabilityNumbers[n]; ok {
			held[n] = true
		}
	}
	return held
}

// DockerCapabilities is Docker's (and runc's) default capability set: what
// a container's root process holds unless told otherwise, and what
// Harbor's task agents and verifiers run with.
var DockerCapabilities = []string{
	"CAP_AUDIT_WRITE", "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_FSETID",
	"CAP_KILL", "CAP_MKNOD", "CAP_NET_BIND_SERVICE", "CAP_NET_RAW", "CAP_SETFCAP",
	"CAP_SETGID", "CAP_SETPCAP", "CAP_SETUID", "CAP_SYS_CHROOT",
}

// Capability set names accepted by ParseCapabilitySet.
const (
	CapsNone   = "none"
	CapsDocker = "docker"
)

// CanonicalCapability turns a capability name as Docker accepts it
// ("chown", "CAP_CHOWN", "net_raw") into its canonical form
// ("CAP_CHOWN"); ok is false for a name this table lacks.
func CanonicalCapability(name string) (string, bool) {
	n := strings.ToUpper(strings.TrimSpace(name))
	if !strings.HasPrefix(n, "CAP_") {
		n = "CAP_" + n
	}
	_, ok := capabilityNumbers[n]
	return n, ok
}

// ParseCapabilitySet reads a capability set as `--caps` takes it: "none"
// (the empty set), "docker" (DockerCapabilities) or a comma-separated
// list of names in Docker's spellings. The result is canonical, sorted
// and without duplicates, never nil; an unknown name is an error naming
// it. Pure.
func ParseCapabilitySet(s string) ([]string, error) {
	const want = "want none, docker or a list such as CHOWN,FOWNER"
	switch strings.TrimSpace(s) {
	case CapsNone:
		return []string{}, nil
	case CapsDocker:
		return slices.Clone(DockerCapabilities), nil
	case "":
		return nil, fmt.Errorf("empty capability set (%s)", want)
	}
	var names []string
	for _, part := range strings.Split(s, ",") {
		n, ok := CanonicalCapability(part)
		if !ok {
			return nil, fmt.Errorf("unknown capability %q (%s)", strings.TrimSpace(part), want)
		}
		names = append(names, n)
	}
	return SortCapabilities(names), nil
}

// SortCapabilities returns names sorted and without duplicates, never nil.
func SortCapabilities(names []string) []string {
	out := slices.Compact(slices.Sorted(slices.Values(names)))
	if out == nil {
		out = []string{}
	}
	return out
}

// lastCap returns the highest capability number of this kernel.
func lastCap() int {
	data, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil {
			return n
		}
	}
	return unix.CAP_LAST_CAP
}

// capSets are a thread's effective, permitted and inheritable sets.
type capSets struct{ effective, permitted, inheritable uint64 }

func capget() (capSets, error) {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return capSets{}, fmt.Errorf("capget: %w", err)
	}
	join := func(lo, hi uint32) uint64 { return uint64(hi)<<32 | uint64(lo) }
	return capSets{
		effective:   join(data[0].Effective, data[1].Effective),
		permitted:   join(data[0].Permitted, data[1].Permitted),
		inheritable: join(data[0].Inheritable, data[1].Inheritable),
	}, nil
}

func capset(s capSets) error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	data := [2]unix.CapUserData{
		{Effective: uint32(s.effective), Permitted: uint32(s.permitted), Inheritable: uint32(s.inheritable)},
		{Effective: uint32(s.effective >> 32), Permitted: uint32(s.permitted >> 32), Inheritable: uint32(s.inheritable >> 32)},
	}
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	return nil
}

// capMask is the set of capability numbers nrs.
func capMask(nrs []int) uint64 {
	var m uint64
	for _, n := range nrs {
		m |= 1 << uint(n)
	}
	return m
}

// limitCapabilities is the first half of the capability step, run on the
// thread that execs while it still has its privileges (before the
// identity change, which needs CAP_SETUID and CAP_SETGID): the bounding
// set keeps only the granted capabilities and the ambient and
// inheritable sets are cleared, as Docker leaves them. Without
// CAP_SETPCAP (a caller that is not root) there is nothing to limit, and
// granting is an error.
func limitCapabilities(granted []int) error {
	cur, err := capget()
	if err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("clear the ambient capabilities: %w", err)
	}
	if cur.effective&(1<<unix.CAP_SETPCAP) == 0 {
		if len(granted) > 0 {
			return errors.New("capabilities can only be granted to a tree started as root")
		}
		return nil
	}
	want := capMask(granted)
	last := lastCap()
	for c := 0; c <= last; c++ {
		if want&(1<<uint(c)) != 0 {
			continue
		}
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
			return fmt.Errorf("drop capability %d from the bounding set: %w", c, err)
		}
	}
	cur.inheritable = 0
	return capset(cur)
}

// grantedSets are the sets a tree starts with, as Docker gives them: a
// uid-0 tree holds the granted capabilities in its effective and
// permitted sets (and keeps them across exec: root's exec gives it its
// bounding set, no_new_privs caps that at the permitted set); any other
// uid holds none (the kernel cleared them at the uid change), the
// granted ones staying in its bounding set only. The inheritable and
// ambient sets stay empty. Pure.
func grantedSets(granted []int, euid int) capSets {
	if euid != 0 {
		return capSets{}
	}
	want := capMask(granted)
	return capSets{effective: want, permitted: want}
}

// finishCapabilities is the second half, after the identity change: the
// effective and permitted sets become grantedSets.
func finishCapabilities(granted []int) error {
	return capset(grantedSets(granted, unix.Geteuid()))
}

// deviceCreation are the Landlock rights to create device nodes.
const deviceCreation = policy.AccessMakeBlock | policy.AccessMakeChar

// withoutDeviceNodes returns plan with no right to create device nodes,
// for a tree granted CAP_MKNOD (nil: plan itself). Docker lets a root
// container make device nodes but its device cgroup forbids opening them;
// a tree outside such a cgroup (authbench exec on a host) could read a
// whole disk through a node it made, past every Landlock rule. Without
// CAP_MKNOD the rights are moot. Pure.
func withoutDeviceNodes(plan *policy.Plan, granted []int) *policy.Plan {
	if plan == nil || !slices.Contains(granted, unix.CAP_MKNOD) {
		return plan
	}
	cp := *plan
	cp.Rules = make([]policy.Rule, len(plan.Rules))
	for i, r := range plan.Rules {
		r.Access &^= deviceCreation
		cp.Rules[i] = r
	}
	return &cp
}

// CanCreateNamespaces reports whether this process may give sandbox-init
// its own PID and mount namespaces (LaunchOptions): it holds
// CAP_SYS_ADMIN. Root inside a confined tree does not.
func CanCreateNamespaces() bool {
	s, err := capget()
	return err == nil && s.effective&(1<<unix.CAP_SYS_ADMIN) != 0
}
