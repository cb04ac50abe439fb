package env

import (
	"errors"
	"reflect"
	"testing"
)

func TestBoundsWithDefaults(t *testing.T) {
	got, defaulted := Bounds{MemoryMB: 64}.WithDefaults()
	want := Bounds{CPUs: DefaultBounds.CPUs, MemoryMB: 64, Pids: DefaultBounds.Pids}
	if got != want || !reflect.DeepEqual(defaulted, []string{BoundCPUs, BoundPids}) {
		t.Fatalf("got %+v %v, want %+v [cpus pids]", got, defaulted, want)
	}
	if DefaultBounds.CPUs <= 0 || DefaultBounds.MemoryMB <= 0 || DefaultBounds.Pids <= 0 {
		t.Fatalf("a default bound is unset: %+v", DefaultBounds)
	}
}

// ourMountinfo is this machine's cgroup layout (DESIGN §9: v1
// controllers, cgroup2 at /sys/fs/cgroup/unified with none).
const ourMountinfo = `31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
`

func TestParseControllers(t *testing.T) {
	noRead := func(string) ([]byte, error) { return nil, errors.New("not unified") }
	cases := []struct {
		name, mountinfo string
		read            func(string) ([]byte, error)
		want            Controllers
		unenforced      []string
	}{
		{"hybrid", ourMountinfo, noRead, Controllers{Names: []string{"cpu", "cpuacct", "memory", "pids"}}, nil},
		{"hybrid without pids", "39 31 0:36 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n35 31 0:32 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n",
			noRead, Controllers{Names: []string{"cpu", "cpuacct", "memory"}}, []string{BoundPids}},
		{"unified", "25 23 0:22 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n",
			func(mnt string) ([]byte, error) {
				if mnt != "/sys/fs/cgroup" {
					return nil, errors.New(mnt)
				}
				return []byte("cpuset cpu io memory pids\n"), nil
			}, Controllers{Unified: true, Names: []string{"cpu", "cpuset", "io", "memory", "pids"}}, nil},
		{"unified without delegation", "25 23 0:22 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
			func(string) ([]byte, error) { return []byte("\n"), nil }, Controllers{Unified: true}, []string{BoundCPUs, BoundMemory, BoundPids}},
	}
	for _, tc := range cases {
		got, err := parseControllers([]byte(tc.mountinfo), tc.read)
		if err != nil || got.Unified != tc.want.Unified || !reflect.DeepEqual(got.Names, tc.want.Names) {
			t.Errorf("%s: got %+v %v, want %+v", tc.name, got, err, tc.want)
			continue
		}
		if u := Unenforced(got); !reflect.DeepEqual(u, tc.unenforced) {
			t.Errorf("%s: unenforced %v, want %v", tc.name, u, tc.unenforced)
		}
	}
}
