package sandbox

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/policy"
)

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
