package env

import (
	"reflect"
	"strings"
	"testing"

	specs "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/authbench/authbench/capability"
)

func mountDests(s *specs.Spec) []string {
	var out []string
	for _, m := range s.Mounts {
		out = append(out, m.Destination)
	}
	return out
}

func nsTypes(s *specs.Spec) []specs.LinuxNamespaceType {
	var out []specs.LinuxNamespaceType
	for _, n := range s.Linux.Namespaces {
		out = append(out, n.Type)
	}
	return out
}

func findMount(s *specs.Spec, dest string) *specs.Mount {
	for i := range s.Mounts {
		if s.Mounts[i].Destination == dest {
			return &s.Mounts[i]
		}
	}
	return nil
}

func TestRuntimeSpec(t *testing.T) {
	base := RunConfig{Rootfs: "/runs/1/merged", Args: []string{"/bin/true"}}
	allNS := []specs.LinuxNamespaceType{specs.PIDNamespace, specs.MountNamespace, specs.IPCNamespace, specs.UTSNamespace, specs.NetworkNamespace}
	stdMounts := []string{"/proc", "/dev", "/dev/pts", "/dev/shm", "/dev/mqueue", "/sys"}
	seccomp := &specs.LinuxSeccomp{DefaultAction: specs.ActAllow, Syscalls: []specs.LinuxSyscall{{Names: []string{"ptrace"}, Action: specs.ActErrno}}}

	cases := []struct {
		name  string
		edit  func(c *RunConfig)
		check func(t *testing.T, s *specs.Spec)
	}{
		{"defaults", func(c *RunConfig) {}, func(t *testing.T, s *specs.Spec) {
			if !reflect.DeepEqual(nsTypes(s), allNS) {
				t.Errorf("namespaces = %v", nsTypes(s))
			}
			if !reflect.DeepEqual(mountDests(s), stdMounts) {
				t.Errorf("mounts = %v", mountDests(s))
			}
			p := s.Process
			if p.Cwd != "/" || !p.NoNewPrivileges || p.User.UID != 0 || p.Terminal || !reflect.DeepEqual(p.Env, []string{DefaultPath}) {
				t.Errorf("process = %+v", p)
			}
			if len(p.Capabilities.Effective) == 0 || !reflect.DeepEqual(p.Rlimits, DefaultRlimits) {
				t.Errorf("root should keep runc's default capabilities and rlimits: %+v", p.Capabilities)
			}
			if s.Hostname != "authbench" || s.Root.Path != "/runs/1/merged" || s.Root.Readonly || s.Linux.Seccomp != nil {
				t.Errorf("spec = %+v", s)
			}
			if len(s.Linux.MaskedPaths) == 0 || len(s.Linux.ReadonlyPaths) == 0 {
				t.Error("no masked/readonly paths")
			}
			r := s.Linux.Resources
			if len(r.Devices) != 1 || r.Devices[0].Allow {
				t.Errorf("resources = %+v", r)
			}
			// Every container is bounded: DefaultBounds when none is set.
			if r.Pids == nil || *r.Pids.Limit != DefaultBounds.Pids || r.Memory == nil || *r.Memory.Limit != DefaultBounds.MemoryMB<<20 ||
				r.CPU == nil || *r.CPU.Quota != int64(DefaultBounds.CPUs*100000) || *r.CPU.Period != 100000 {
				t.Errorf("resources without bounds set = %+v, want DefaultBounds %+v", r, DefaultBounds)
			}
		}},
		{"no cgroup mount ever", func(c *RunConfig) { c.AllowInternet = true; c.TmpTmpfs = true }, func(t *testing.T, s *specs.Spec) {
			for _, m := range s.Mounts {
				if strings.HasPrefix(m.Destination, "/sys/fs/cgroup") || m.Type == "cgroup" || m.Type == "cgroup2" {
					t.Errorf("cgroup mount %+v", m)
				}
			}
		}},
		{"allow internet shares the network namespace", func(c *RunConfig) { c.AllowInternet = true }, func(t *testing.T, s *specs.Spec) {
			if !reflect.DeepEqual(nsTypes(s), allNS[:4]) {
				t.Errorf("namespaces = %v", nsTypes(s))
			}
		}},
		{"a sibling's network namespace is joined", func(c *RunConfig) { c.NetNSPath = "/proc/42/ns/net" }, func(t *testing.T, s *specs.Spec) {
			ns := s.Linux.Namespaces
			if len(ns) != 5 || ns[4].Type != specs.NetworkNamespace || ns[4].Path != "/proc/42/ns/net" {
				t.Errorf("namespaces = %+v", ns)
			}
		}},
		{"unprivileged user gets no capabilities", func(c *RunConfig) { c.UID, c.GID, c.AdditionalGids = 1000, 1000, []uint32{27} }, func(t *testing.T, s *specs.Spec) {
			p := s.Process
			if p.User.UID != 1000 || p.User.GID != 1000 || !reflect.DeepEqual(p.User.AdditionalGids, []uint32{27}) {
				t.Errorf("user = %+v", p.User)
			}
			if len(p.Capabilities.Effective) != 0 || len(p.Capabilities.Permitted) != 0 || len(p.Capabilities.Bounding) == 0 {
				t.Errorf("caps = %+v", p.Capabilities)
			}
		}},
		{"root holds Docker's set, plus what a tree is granted beyond it", func(c *RunConfig) { c.AddCapabilities = []string{"CAP_SYS_PTRACE", "CAP_CHOWN"} }, func(t *testing.T, s *specs.Spec) {
			want := capability.Sort(append(append([]string{}, capability.Docker...), "CAP_SYS_PTRACE"))
			c := s.Process.Capabilities
			if !reflect.DeepEqual(c.Bounding, want) || !reflect.DeepEqual(c.Effective, want) || !reflect.DeepEqual(c.Permitted, want) || len(c.Inheritable)+len(c.Ambient) != 0 {
				t.Errorf("caps = %+v, want %v in bounding, effective and permitted only", c, want)
			}
		}},
		{"authbench files, tests and binds", func(c *RunConfig) {
			c.Binary, c.PolicyFile, c.TestsDir = "/usr/local/bin/authbench", "/runs/1/plan.json", "/tasks/x/tests"
			c.Binds = []Bind{{Source: "/runs/1/logs", Destination: "/logs/verifier/"}}
		}, func(t *testing.T, s *specs.Spec) {
			want := append(append([]string{}, stdMounts...), ContainerBinary, ContainerPolicy, ContainerTests, "/logs/verifier")
			if !reflect.DeepEqual(mountDests(s), want) {
				t.Fatalf("mounts = %v", mountDests(s))
			}
			bin := findMount(s, ContainerBinary)
			if bin.Source != "/usr/local/bin/authbench" || !contains(bin.Options, "ro") || contains(bin.Options, "noexec") {
				t.Errorf("binary mount = %+v", bin)
			}
			if logs := findMount(s, "/logs/verifier"); contains(logs.Options, "ro") {
				t.Errorf("logs mount should be writable: %+v", logs)
			}
			if tests := findMount(s, ContainerTests); !contains(tests.Options, "ro") {
				t.Errorf("tests mount = %+v", tests)
			}
		}},
		{"process settings", func(c *RunConfig) {
			c.Args = []string{ContainerBinary, "sandbox-init", "--", "bash", "-c", "x"}
			c.Env = []string{"PATH=/opt/bin", "HOME=/root"}
			c.Cwd = "/app"
			c.Hostname = "task-1"
			c.ReadonlyRootfs = true
			c.Seccomp = seccomp
			c.Rlimits = []specs.POSIXRlimit{{Type: "RLIMIT_NPROC", Hard: 64, Soft: 64}}
		}, func(t *testing.T, s *specs.Spec) {
			p := s.Process
			if p.Args[0] != ContainerBinary || p.Cwd != "/app" || !reflect.DeepEqual(p.Env, []string{"PATH=/opt/bin", "HOME=/root"}) {
				t.Errorf("process = %+v", p)
			}
			if s.Hostname != "task-1" || !s.Root.Readonly || s.Linux.Seccomp != seccomp || p.Rlimits[0].Type != "RLIMIT_NPROC" || len(p.Rlimits) != 1 {
				t.Errorf("spec = %+v", s)
			}
		}},
		{"tmpfs on /tmp when asked", func(c *RunConfig) { c.TmpTmpfs = true }, func(t *testing.T, s *specs.Spec) {
			if m := findMount(s, "/tmp"); m == nil || m.Type != "tmpfs" {
				t.Errorf("mounts = %v", mountDests(s))
			}
		}},
		{"resources", func(c *RunConfig) { c.CPUs, c.MemoryMB, c.PidsLimit, c.CgroupsPath = 1.5, 512, 100, "/authbench/run-1" }, func(t *testing.T, s *specs.Spec) {
			r := s.Linux.Resources
			if *r.CPU.Quota != 150000 || *r.CPU.Period != 100000 || *r.Memory.Limit != 512<<20 || *r.Pids.Limit != 100 || s.Linux.CgroupsPath != "/authbench/run-1" {
				t.Errorf("resources = %+v %+v %+v", r.CPU, r.Memory, r.Pids)
			}
		}},
		{"a missing controller's bound is left out, the others kept", func(c *RunConfig) {
			c.MemoryMB, c.Controllers = 64, &Controllers{Names: []string{"cpu", "memory"}}
		}, func(t *testing.T, s *specs.Spec) {
			r := s.Linux.Resources
			if r.Pids != nil || r.Memory == nil || *r.Memory.Limit != 64<<20 || r.CPU == nil {
				t.Errorf("resources = %+v %+v %+v", r.CPU, r.Memory, r.Pids)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := base
			tc.edit(&c)
			s, err := RuntimeSpec(c)
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, s)
		})
	}
}

func TestRuntimeSpecRejects(t *testing.T) {
	cases := map[string]RunConfig{
		"relative rootfs":     {Rootfs: "rootfs", Args: []string{"/bin/true"}},
		"no args":             {Rootfs: "/r"},
		"relative cwd":        {Rootfs: "/r", Args: []string{"x"}, Cwd: "app"},
		"relative bind":       {Rootfs: "/r", Args: []string{"x"}, Binds: []Bind{{Source: "logs", Destination: "/logs"}}},
		"bind on /":           {Rootfs: "/r", Args: []string{"x"}, Binds: []Bind{{Source: "/a", Destination: "/"}}},
		"destination twice":   {Rootfs: "/r", Args: []string{"x"}, TestsDir: "/t", Binds: []Bind{{Source: "/a", Destination: "/tests/"}}},
		"negative memory":     {Rootfs: "/r", Args: []string{"x"}, MemoryMB: -1},
		"netns with internet": {Rootfs: "/r", Args: []string{"x"}, NetNSPath: "/proc/1/ns/net", AllowInternet: true},
		"relative netns":      {Rootfs: "/r", Args: []string{"x"}, NetNSPath: "ns/net"},
		"unknown capability":  {Rootfs: "/r", Args: []string{"x"}, AddCapabilities: []string{"CAP_NOPE"}},
	}
	for name, c := range cases {
		if _, err := RuntimeSpec(c); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
}

func TestMergeEnv(t *testing.T) {
	got := MergeEnv([]string{"PATH=/bin", "A=1"}, []string{"A=2", "B=3"})
	if !reflect.DeepEqual(got, []string{"PATH=/bin", "A=2", "B=3"}) {
		t.Errorf("MergeEnv = %v", got)
	}
}

func TestRuncArgv(t *testing.T) {
	r := Runc{Root: "/run/x"}
	if got := r.RunArgv("/b", "id1"); !reflect.DeepEqual(got, []string{"runc", "--root", "/run/x", "run", "--bundle", "/b", "id1"}) {
		t.Errorf("RunArgv = %v", got)
	}
	r = Runc{Bin: "/usr/sbin/runc", NoPivot: true}
	if got := r.RunArgv("/b", "id1"); !reflect.DeepEqual(got, []string{"/usr/sbin/runc", "--root", DefaultRuncRoot, "run", "--bundle", "/b", "--no-pivot", "id1"}) {
		t.Errorf("RunArgv = %v", got)
	}
	if got := r.KillArgv("id1", 9); !reflect.DeepEqual(got, []string{"/usr/sbin/runc", "--root", DefaultRuncRoot, "kill", "--all", "id1", "9"}) {
		t.Errorf("KillArgv = %v", got)
	}
}
