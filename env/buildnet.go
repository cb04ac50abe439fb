package env

import (
	"fmt"
	"io"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/authbench/authbench/internal/netns"

	"github.com/authbench/authbench/netproxy"
	"github.com/authbench/authbench/netproxy/netpolicy"
)

// DefaultBuildHosts are the hosts a build's RUN steps may reach (ports 80
// and 443) when BuildOptions.BuildHosts is nil: Debian's archive and
// security mirrors, PyPI and the npm registry — where Dockerfiles'
// apt-get, pip and npm install from.
var DefaultBuildHosts = []string{
	"deb.debian.org", "security.debian.org",
	"pypi.org", "files.pythonhosted.org",
	"registry.npmjs.org",
}

// buildHosts is the build's allow-list: o.BuildHosts, else
// DefaultBuildHosts plus the hosts of the mirrors the bases use (the
// mirror the machine's apt sources name, the default base's, the family
// bases'), with their port when the URL names one.
func buildHosts(o BuildOptions) []string {
	if o.BuildHosts != nil {
		return o.BuildHosts
	}
	hosts := slices.Clone(DefaultBuildHosts)
	for _, m := range []string{MachineMirror("bookworm"), o.Bases.Default.Mirror, o.Bases.Mirror} {
		if u, err := url.Parse(m); err == nil && u.Hostname() != "" {
			hosts = append(hosts, u.Host) // a port given (a local apt cache) is the one allowed
		}
	}
	return slices.Compact(slices.Sorted(slices.Values(hosts)))
}

// buildNetwork is the network of one build's RUN steps: a namespace with
// only its loopback, whose only way out is an egress proxy (netproxy)
// that allows the build hosts. Steps reach an allowed name at its usual
// name and port (an --add-host entry maps it to the proxy's stand-in
// address); anything else — another host, the host's loopback, its
// abstract sockets — is not there.
type buildNetwork struct {
	ns    *os.File
	proxy *netproxy.Proxy
	log   *netproxy.Log
}

// startBuildNetwork makes the namespace and starts its proxy.
func startBuildNetwork(hosts []string) (*buildNetwork, error) {
	allow, err := netpolicy.ParseAllowList("build hosts", hosts)
	if err != nil {
		return nil, err
	}
	ns, err := netns.New()
	if err != nil {
		return nil, fmt.Errorf("build network namespace: %w", err)
	}
	n := &buildNetwork{ns: ns, log: &netproxy.Log{W: io.Discard}}
	pol := netpolicy.Policy{Mode: netpolicy.Allowlist, Allow: allow, Hosts: allow.Strings()}
	n.proxy, err = netproxy.Start(ns, netproxy.Config{Phase: netpolicy.PhaseBuild, Policy: pol, Names: allow.Names(), Sink: n.log})
	if err != nil {
		ns.Close()
		return nil, fmt.Errorf("build network proxy: %w", err)
	}
	return n, nil
}

// path is the namespace's path for buildah's --network ns:PATH.
func (n *buildNetwork) path() string {
	return fmt.Sprintf("/proc/%d/fd/%d", os.Getpid(), n.ns.Fd())
}

// addHosts are the --add-host entries (name:address) of the allowed
// names' stand-in addresses.
func (n *buildNetwork) addHosts() []string {
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(n.proxy.HostsEntries()), "\n") {
		if f := strings.Fields(line); len(f) == 2 {
			out = append(out, f[1]+":"+f[0])
		}
	}
	return out
}

// close stops the proxy and releases the namespace; refused lists the
// destinations the steps tried and the proxy refused, with counts, in
// first-seen order.
func (n *buildNetwork) close() (refused []string) {
	n.proxy.Close()
	n.ns.Close()
	events, _ := n.log.Events()
	for _, d := range NetworkRefusals(events) {
		refused = append(refused, fmt.Sprintf("%s (%d)", d.Target, d.Count))
	}
	return refused
}

// Refusal is one destination a build's network refused, and how often.
type Refusal struct {
	Target string
	Count  int
}

// NetworkRefusals are the refused attempts of events, one per
// destination, in first-seen order.
func NetworkRefusals(events []netpolicy.Event) []Refusal {
	var out []Refusal
	index := map[string]int{}
	for _, e := range events {
		if e.Allowed {
			continue
		}
		t := e.Target()
		if i, ok := index[t]; ok {
			out[i].Count++
			continue
		}
		index[t] = len(out)
		out = append(out, Refusal{Target: t, Count: 1})
	}
	return out
}
