package env

import (
	"fmt"
	"path"
	"strings"

	specs "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/authbench/authbench/capability"
	"github.com/authbench/authbench/policy"
)

// Paths inside the container where RuntimeSpec mounts authbench's files.
const (
	ContainerBinary = "/.authbench/authbench"
	ContainerPolicy = "/.authbench/policy.json"
	ContainerTests  = "/tests"
)

// DefaultPath is PATH when the caller's environment has none.
const DefaultPath = "PATH=" + policy.DefaultPath

// Bind is a host path bind-mounted into the container.
type Bind struct {
	Source      string `json:"source"`
	Destination string `json:"destination"`
	ReadOnly    bool   `json:"read_only"`
}

// RunConfig is what RuntimeSpec needs to describe one container.
type RunConfig struct {
	// Rootfs is the absolute host path of the run's root filesystem.
	Rootfs string
	// ReadonlyRootfs mounts the root read-only (e.g. for policy generation).
	ReadonlyRootfs bool
	// Args is the command (argv) run as the container's init.
	Args []string
	// Env is the environment; DefaultPath is added when it has no PATH.
	Env []string
	// Cwd is the working directory inside the container, "/" when empty.
	Cwd string
	// UID and GID run the process; AdditionalGids are its groups.
	UID, GID       uint32
	AdditionalGids []uint32
	// Hostname of the UTS namespace, "authbench" when empty.
	Hostname string
	// AllowInternet shares the host's network namespace; otherwise the
	// container gets its own with only loopback.
	AllowInternet bool
	// NetNSPath, when set, is a network namespace to join (e.g.
	// /proc/PID/ns/net of a sibling container) instead of a new one;
	// AllowInternet must then be false.
	NetNSPath string
	// TestsDir, when set, is mounted read-only at /tests.
	TestsDir string
	// Binary, when set, is the authbench binary, mounted read-only at
	// /.authbench/authbench so that sandbox-init can run inside.
	Binary string
	// PolicyFile, when set, is mounted read-only at /.authbench/policy.json.
	PolicyFile string
	// Binds are further bind mounts.
	Binds []Bind
	// Seccomp is the seccomp profile applied by the runtime; nil for none.
	Seccomp *specs.LinuxSeccomp
	// Rlimits replaces DefaultRlimits when non-nil.
	Rlimits []specs.POSIXRlimit
	// TmpTmpfs mounts a fresh tmpfs on /tmp. Off by default: the verifier
	// runs after the agent in the same rootfs and may look at /tmp.
	TmpTmpfs bool
	// CPUs, MemoryMB and PidsLimit bound the container's cgroup; each
	// left 0 gets DefaultBounds' (every container is bounded).
	CPUs      float64
	MemoryMB  int64
	PidsLimit int64
	// Controllers are the host's cgroup controllers (HostControllers): a
	// bound whose controller is missing is left out of the spec (the run
	// record names it, Unenforced). Nil: every bound goes to runc, which
	// refuses to start the container if its controller is missing.
	Controllers *Controllers
	// CgroupsPath is the runtime's cgroup path, "" for its default.
	CgroupsPath string
	// AddCapabilities are given to the container's root process beyond
	// Docker's default set (capability.Docker), for a tree
	// granted more; sandbox-init narrows the set of the tree it starts.
	AddCapabilities []string
}

// DefaultRlimits are the resource limits of a run unless the caller
// sets others. They only lower limits: raising one above the caller's
// hard limit needs CAP_SYS_RESOURCE, which our hosts' root lacks.
var DefaultRlimits = []specs.POSIXRlimit{
	{Type: "RLIMIT_NOFILE", Hard: 1024, Soft: 1024},
	{Type: "RLIMIT_CORE", Hard: 0, Soft: 0},
}

// maskedPaths and readonlyPaths are runc's defaults.
var (
	maskedPaths = []string{
		"/proc/acpi", "/proc/asound", "/proc/kcore", "/proc/keys", "/proc/latency_stats",
		"/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/proc/scsi",
		"/sys/firmware", "/sys/devices/virtual/powercap",
	}
	readonlyPaths = []string{"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"}
)

// RuntimeSpec builds the OCI runtime config of a container from c. It is
// a pure function: it checks c but touches nothing. There is deliberately
// no /sys/fs/cgroup mount: runc refuses it on cgroup v1+v2 hybrid hosts.
func RuntimeSpec(c RunConfig) (*specs.Spec, error) {
	if err := c.check(); err != nil {
		return nil, fmt.Errorf("runtime config: %w", err)
	}
	hostname := c.Hostname
	if hostname == "" {
		hostname = "authbench"
	}
	cwd := c.Cwd
	if cwd == "" {
		cwd = "/"
	}
	rlimits := c.Rlimits
	if rlimits == nil {
		rlimits = DefaultRlimits
	}
	set := capability.Sort(append(clone(capability.Docker), c.AddCapabilities...))
	caps := &specs.LinuxCapabilities{Bounding: set}
	if c.UID == 0 {
		caps.Effective, caps.Permitted = clone(set), clone(set)
	}
	s := &specs.Spec{
		Version:  specs.Version,
		Root:     &specs.Root{Path: c.Rootfs, Readonly: c.ReadonlyRootfs},
		Hostname: hostname,
		Process: &specs.Process{
			User:            specs.User{UID: c.UID, GID: c.GID, AdditionalGids: append([]uint32(nil), c.AdditionalGids...)},
			Args:            clone(c.Args),
			Env:             withPath(c.Env),
			Cwd:             cwd,
			Capabilities:    caps,
			Rlimits:         append([]specs.POSIXRlimit(nil), rlimits...),
			NoNewPrivileges: true,
		},
		Mounts: baseMounts(c),
		Linux: &specs.Linux{
			Namespaces:    namespaces(c.AllowInternet, c.NetNSPath),
			Resources:     resources(c),
			CgroupsPath:   c.CgroupsPath,
			Seccomp:       c.Seccomp,
			MaskedPaths:   clone(maskedPaths),
			ReadonlyPaths: clone(readonlyPaths),
		},
	}
	return s, nil
}

func (c RunConfig) check() error {
	switch {
	case !path.IsAbs(c.Rootfs):
		return fmt.Errorf("rootfs %q is not an absolute path", c.Rootfs)
	case len(c.Args) == 0 || c.Args[0] == "":
		return fmt.Errorf("no command to run")
	case c.Cwd != "" && !path.IsAbs(c.Cwd):
		return fmt.Errorf("working directory %q is not absolute", c.Cwd)
	case c.CPUs < 0 || c.MemoryMB < 0 || c.PidsLimit < 0:
		return fmt.Errorf("negative resource limit")
	case c.NetNSPath != "" && (c.AllowInternet || !path.IsAbs(c.NetNSPath)):
		return fmt.Errorf("network namespace %q: must be absolute, and not with the host's network", c.NetNSPath)
	}
	if _, err := capability.Numbers(c.AddCapabilities); err != nil {
		return fmt.Errorf("added capabilities: %w", err)
	}
	seen := map[string]bool{}
	for _, b := range c.binds() {
		if !path.IsAbs(b.Source) || !path.IsAbs(b.Destination) {
			return fmt.Errorf("bind %s → %s: both paths must be absolute", b.Source, b.Destination)
		}
		d := path.Clean(b.Destination)
		if d == "/" || seen[d] {
			return fmt.Errorf("bind %s → %s: destination is / or used twice", b.Source, b.Destination)
		}
		seen[d] = true
	}
	return nil
}

// binds lists every bind mount of the run, the fixed ones first.
func (c RunConfig) binds() []Bind {
	var out []Bind
	if c.Binary != "" {
		out = append(out, Bind{Source: c.Binary, Destination: ContainerBinary, ReadOnly: true})
	}
	if c.PolicyFile != "" {
		out = append(out, Bind{Source: c.PolicyFile, Destination: ContainerPolicy, ReadOnly: true})
	}
	if c.TestsDir != "" {
		out = append(out, Bind{Source: c.TestsDir, Destination: ContainerTests, ReadOnly: true})
	}
	return append(out, c.Binds...)
}

// MountPoints lists where the container mounts a file system at run
// time (the kernel's /proc, /sys, /dev and its parts, a tmpfs on /tmp,
// the binds): what the rootfs holds there is hidden once it runs.
func (c RunConfig) MountPoints() []string {
	ms := baseMounts(c)
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Destination
	}
	return out
}

func baseMounts(c RunConfig) []specs.Mount {
	ms := []specs.Mount{
		{Destination: "/proc", Type: "proc", Source: "proc", Options: []string{"nosuid", "noexec", "nodev"}},
		{Destination: "/dev", Type: "tmpfs", Source: "tmpfs", Options: []string{"nosuid", "strictatime", "mode=755", "size=65536k"}},
		{Destination: "/dev/pts", Type: "devpts", Source: "devpts", Options: []string{"nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620", "gid=5"}},
		{Destination: "/dev/shm", Type: "tmpfs", Source: "shm", Options: []string{"nosuid", "noexec", "nodev", "mode=1777", "size=65536k"}},
		{Destination: "/dev/mqueue", Type: "mqueue", Source: "mqueue", Options: []string{"nosuid", "noexec", "nodev"}},
		{Destination: "/sys", Type: "sysfs", Source: "sysfs", Options: []string{"nosuid", "noexec", "nodev", "ro"}},
	}
	if c.TmpTmpfs {
		ms = append(ms, specs.Mount{Destination: "/tmp", Type: "tmpfs", Source: "tmpfs", Options: []string{"nosuid", "nodev", "mode=1777"}})
	}
	for _, b := range c.binds() {
		opts := []string{"rbind", "nosuid", "nodev"}
		if b.ReadOnly {
			opts = append(opts, "ro")
		}
		ms = append(ms, specs.Mount{Destination: path.Clean(b.Destination), Type: "bind", Source: b.Source, Options: opts})
	}
	return ms
}

func namespaces(allowInternet bool, netns string) []specs.LinuxNamespace {
	ns := []specs.LinuxNamespace{{Type: specs.PIDNamespace}, {Type: specs.MountNamespace}, {Type: specs.IPCNamespace}, {Type: specs.UTSNamespace}}
	if !allowInternet {
		ns = append(ns, specs.LinuxNamespace{Type: specs.NetworkNamespace, Path: netns})
	}
	return ns
}

// Bounds are the bounds the container gets: CPUs, MemoryMB and
// PidsLimit, DefaultBounds' for each left 0, without those the host's
// Controllers cannot enforce (0: not given to runc). Pure.
func (c RunConfig) Bounds() Bounds {
	b, _ := Bounds{CPUs: c.CPUs, MemoryMB: c.MemoryMB, Pids: c.PidsLimit}.WithDefaults()
	return b.without(Unenforced(c.Controllers))
}

// resources denies device access except runc's defaults and applies the
// CPU, memory and pids bounds (Bounds).
func resources(c RunConfig) *specs.LinuxResources {
	r := &specs.LinuxResources{Devices: []specs.LinuxDeviceCgroup{{Allow: false, Access: "rwm"}}}
	b := c.Bounds()
	if b.CPUs > 0 {
		period := uint64(100000)
		quota := int64(b.CPUs * float64(period))
		r.CPU = &specs.LinuxCPU{Period: &period, Quota: &quota}
	}
	if b.MemoryMB > 0 {
		limit := b.MemoryMB << 20
		r.Memory = &specs.LinuxMemory{Limit: &limit}
	}
	if b.Pids > 0 {
		limit := b.Pids
		r.Pids = &specs.LinuxPids{Limit: &limit}
	}
	return r
}

// withPath returns env with DefaultPath added when it sets no PATH.
func withPath(env []string) []string {
	out := clone(env)
	for _, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			return out
		}
	}
	return append(out, DefaultPath)
}

// MergeEnv returns base with every KEY=VALUE of over replacing (or adding
// to) the entry of the same KEY, order kept.
func MergeEnv(base, over []string) []string {
	out := clone(base)
	idx := map[string]int{}
	for i, kv := range out {
		k, _, _ := strings.Cut(kv, "=")
		idx[k] = i
	}
	for _, kv := range over {
		k, _, _ := strings.Cut(kv, "=")
		if i, ok := idx[k]; ok {
			out[i] = kv
			continue
		}
		idx[k] = len(out)
		out = append(out, kv)
	}
	return out
}

func clone(s []string) []string {
	if s == nil {
		return nil
	}
	return append([]string(nil), s...)
}
