package env

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// Controllers are the cgroup controllers runc can use on this host: on
// a cgroup v1 or hybrid host (ours: v1 controllers, cgroup2 at
// /sys/fs/cgroup/unified with none) those mounted as a v1 hierarchy; on
// a unified host those /sys/fs/cgroup/cgroup.controllers lists. runc
// refuses to start a container with a bound whose controller is missing,
// so a missing one is left out of the spec and named in the run record.
type Controllers struct {
	// Unified is set on a cgroup v2 only host.
	Unified bool `json:"unified"`
	// Names are the controllers, sorted.
	Names []string `json:"names"`
}

// Have reports whether controller name is available.
func (c *Controllers) Have(name string) bool {
	i := sort.SearchStrings(c.Names, name)
	return i < len(c.Names) && c.Names[i] == name
}

var hostControllers = sync.OnceValues(func() (*Controllers, error) {
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, fmt.Errorf("cgroup controllers: %w", err)
	}
	return parseControllers(mi, func(mnt string) ([]byte, error) {
		return os.ReadFile(filepath.Join(mnt, "cgroup.controllers"))
	})
})

// HostControllers are this host's cgroup controllers, probed once per
// process; nil when they cannot be read (runc then decides).
func HostControllers() *Controllers {
	c, err := hostControllers()
	if err != nil {
		return nil
	}
	return c
}

// parseControllers reads the controllers from a mountinfo: each v1
// hierarchy's super options name its controllers ("rw,cpu,cpuacct";
// "name=systemd" is none); a cgroup2 mount at /sys/fs/cgroup makes the
// host unified, its controllers read by readControllers.
func parseControllers(mountinfo []byte, readControllers func(mnt string) ([]byte, error)) (*Controllers, error) {
	seen := map[string]bool{}
	unified := ""
	sc := bufio.NewScanner(bytes.NewReader(mountinfo))
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		fields, tail := strings.Fields(pre), strings.Fields(post)
		if !ok || len(fields) < 5 || len(tail) < 3 {
			continue
		}
		switch tail[0] {
		case "cgroup":
			for _, o := range strings.Split(tail[2], ",") {
				if o != "rw" && o != "ro" && !strings.Contains(o, "=") {
					seen[o] = true
				}
			}
		case "cgroup2":
			if fields[4] == "/sys/fs/cgroup" {
				unified = fields[4]
			}
		}
	}
	if unified != "" {
		data, err := readControllers(unified)
		if err != nil {
			return nil, fmt.Errorf("cgroup controllers: %w", err)
		}
		seen = map[string]bool{}
		for _, n := range strings.Fields(string(data)) {
			seen[n] = true
		}
	}
	c := &Controllers{Unified: unified != ""}
	for n := range seen {
		c.Names = append(c.Names, n)
	}
	sort.Strings(c.Names)
	return c, nil
}
