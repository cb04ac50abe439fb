package netproxy

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/bpf"
)

// connPids is the record of who connected each socket of the namespaces
// the proxies of this process serve (bpf/connpid.c): a socket's cookie,
// which sock_diag reports for the connection, gives its connecting
// process at once, with no look at /proc. The programs are loaded and
// attached once per process, at the root of the cgroup v2 hierarchy
// (so every process of the machine, a container's too, runs them at
// connect(); a namespace not served costs a map lookup), and stay
// attached for the process's life.
type connPids struct {
	objs  bpf.ConnpidObjects
	links []link.Link
}

// loadedConnPids loads and attaches the programs once.
var loadedConnPids = sync.OnceValues(func() (*connPids, error) {
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	root := cgroup2Mount(mi)
	if root == "" {
		return nil, errors.New("no cgroup2 file system mounted")
	}
	spec, err := bpf.LoadConnpid()
	if err != nil {
		return nil, fmt.Errorf("read the embedded connect programs: %w", err)
	}
	// Pids are recorded as this process sees them (its /proc's).
	var ns unix.Stat_t
	if err := unix.Stat("/proc/self/ns/pid", &ns); err != nil {
		return nil, fmt.Errorf("pid namespace: %w", err)
	}
	if err := errors.Join(spec.Variables[bpf.ConnpidVarAbCpPidnsDev].Set(uint64(ns.Dev)),
		spec.Variables[bpf.ConnpidVarAbCpPidnsIno].Set(ns.Ino)); err != nil {
		return nil, fmt.Errorf("connect programs: %w", err)
	}
	c := &connPids{}
	if err := spec.LoadAndAssign(&c.objs, nil); err != nil {
		return nil, fmt.Errorf("load the connect programs: %w", err)
	}
	for _, a := range []struct {
		prog *ebpf.Program
		at   ebpf.AttachType
	}{{c.objs.AbCpConnect4, ebpf.AttachCGroupInet4Connect}, {c.objs.AbCpConnect6, ebpf.AttachCGroupInet6Connect}} {
		l, err := link.AttachCgroup(link.CgroupOptions{Path: root, Attach: a.at, Program: a.prog})
		if err != nil {
			c.close()
			return nil, fmt.Errorf("attach the connect programs at %s: %w", root, err)
		}
		c.links = append(c.links, l)
	}
	return c, nil
})

func (c *connPids) close() {
	for _, l := range c.links {
		l.Close()
	}
	c.objs.Close()
}

// watch starts recording the connections of the namespace nsCookie;
// unwatch stops it.
func (c *connPids) watch(nsCookie uint64) error {
	return c.objs.AbCpNetns.Put(nsCookie, uint8(1))
}

func (c *connPids) unwatch(nsCookie uint64) {
	_ = c.objs.AbCpNetns.Delete(nsCookie)
}

// lookup is the process (its pid in this process's PID namespace) that
// connected the socket cookie, if recorded.
func (c *connPids) lookup(cookie uint64) (int, bool) {
	var tgid uint32
	if err := c.objs.AbCpPids.Lookup(cookie, &tgid); err != nil || tgid == 0 {
		return 0, false
	}
	return int(tgid), true
}

// cgroup2Mount is the mount point of the cgroup v2 hierarchy's root in
// a mountinfo text ("" if none): /sys/fs/cgroup on a unified host,
// /sys/fs/cgroup/unified on a hybrid one. Pure.
func cgroup2Mount(mountinfo []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(mountinfo))
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		fields, tail := strings.Fields(pre), strings.Fields(post)
		if ok && len(fields) >= 5 && len(tail) >= 1 && tail[0] == "cgroup2" && fields[3] == "/" {
			return fields[4]
		}
	}
	return ""
}
