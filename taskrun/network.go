package taskrun

import (
	"context"
	"errors"
	"fmt"
	"github.com/authbench/authbench/internal/netns"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/netproxy"
	"github.com/authbench/authbench/netproxy/netpolicy"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/sandbox"
	"github.com/authbench/authbench/tasks"
)

// landlockTCPNote is what a mediated run records of Landlock's TCP rights
// (docs/security.md, "Network").
const landlockTCPNote = "not restricted: Landlock checks the port passed to connect() before the namespace's redirect to the proxy, " +
	"so pinning connections to the proxy's port would refuse transparent connections unrecorded; the namespace has no route and redirects every TCP connection to the proxy"

// runNetwork is a run's network while it runs.
type runNetwork struct {
	// setup is the set-up phase's: the task's [environment] network.
	setup, agent, verifier netpolicy.Policy
	// origins places the connecting processes (Event.Origin).
	origins origins
	// ns is the namespace the run made (nil: none, or the sidecars');
	// proxy and log are set when a phase is mediated.
	ns    *os.File
	proxy *netproxy.Proxy
	log   *netproxy.Log
	file  *os.File
	// unresolved receives the allowed names that did not resolve.
	unresolved chan []string
}

// NetworkPolicies resolves the agent's and the verifiers' network of a
// run of t (docs/tasks.md, "Network policy"): allowHosts are the
// --agent-allow-host entries, model the endpoint of an agent that calls
// its model from inside the container. Bad entries are errors naming
// their field.
func NetworkPolicies(t *tasks.Task, allowHosts []string, model *netpolicy.ModelEndpoint) (agent, verifier netpolicy.Policy, err error) {
	return NetworkPoliciesUnder(t, allowHosts, model, nil)
}

// NetworkPoliciesUnder is NetworkPolicies for a run under the policy pol
// (nil: unconstrained). When t's spec declares the network axis, pol
// governs the agent's network: only what both the task's network and
// pol's network entries (with the spec's implicit ones) allow, and of
// the run's own services only those they name (docs/scoring.md, "The
// network axis"; netpolicy.ResolvePhase).
func NetworkPoliciesUnder(t *tasks.Task, allowHosts []string, model *netpolicy.ModelEndpoint, pol *policy.Policy) (agent, verifier netpolicy.Policy, err error) {
	c := t.Config
	governed, network := governedNetwork(t, pol)
	extra, err := netpolicy.ParseAllowList("--agent-allow-host", allowHosts)
	if err != nil {
		return agent, verifier, err
	}
	phase := func(name string, n tasks.Network, extra netpolicy.AllowList, model *netpolicy.ModelEndpoint, governed bool, network []policy.HostPattern) (netpolicy.Policy, error) {
		field, hosts := "["+name+"] allowed_hosts", n.AllowedHosts
		if len(hosts) == 0 {
			field, hosts = "[environment] allowed_hosts", c.Environment.Network.AllowedHosts
		}
		allowed, err := netpolicy.ParseAllowList(field, hosts)
		if err != nil {
			return netpolicy.Policy{}, err
		}
		return netpolicy.ResolvePhase(netpolicy.PhaseInput{
			Legacy: c.Environment.AllowInternet, Environment: netpolicy.Mode(c.Environment.Network.Mode),
			Phase: netpolicy.Mode(n.Mode), AllowedHosts: allowed, Extra: extra, Model: model,
			Governed: governed, Network: network,
		})
	}
	if agent, err = phase("agent", c.Agent.Network, extra, model, governed, network); err != nil {
		return agent, verifier, err
	}
	verifier, err = phase("verifier", c.Verifier.Network, netpolicy.AllowList{}, nil, false, nil)
	return agent, verifier, err
}

// governedNetwork reports whether pol governs the agent's network in a
// run of t (t's spec declares the network axis) and with which entries:
// pol's network list and the spec's implicit network entries.
func governedNetwork(t *tasks.Task, pol *policy.Policy) (bool, []policy.HostPattern) {
	if pol == nil || t.Spec == nil || !t.Spec.Network.Declared {
		return false, nil
	}
	return true, slices.Concat(pol.Network, t.Spec.Network.Implicit)
}

// namesServices reports whether the run's services are reached by name
// through the proxy's stand-in addresses (so that its events name them):
// in runs of a task whose spec declares the network axis.
func namesServices(t *tasks.Task) bool { return t.Spec != nil && t.Spec.Network.Declared }

// SetupPolicy is the network of a run's set-up phase (its compose
// services starting and being health-checked, before the agent): the
// task's [environment] network (network_mode, else allow_internet, and
// [environment] allowed_hosts), every service of the run reachable,
// never π's nor the agent's run-time entries or model endpoint: the
// environment's own traffic is not the agent's (docs/trace-events.md,
// "Network events"). A public environment is no-network here: the
// services share the run's namespace, which has no route, and a public
// policy would only hand their loopback connections to the daemon
// host's loopback (a probe answered by a host's server).
func SetupPolicy(t *tasks.Task) (netpolicy.Policy, error) {
	c := t.Config
	allowed, err := netpolicy.ParseAllowList("[environment] allowed_hosts", c.Environment.Network.AllowedHosts)
	if err != nil {
		return netpolicy.Policy{}, err
	}
	p, err := netpolicy.ResolvePhase(netpolicy.PhaseInput{
		Legacy: c.Environment.AllowInternet, Environment: netpolicy.Mode(c.Environment.Network.Mode), AllowedHosts: allowed,
	})
	if p.Mode == netpolicy.Public {
		p = netpolicy.Policy{Mode: netpolicy.NoNetwork}
	}
	return p, err
}

// PublicThroughProxy is the phase p of a run with compose services: a
// public phase is mediated, public through the run's proxy (AllowAll),
// so that its containers stay in the services' private namespace (where
// the services' names resolve) and still reach whatever the host can, as
// Harbor's compose network with internet access does; any other phase is
// returned as it is. Pure.
func PublicThroughProxy(p netpolicy.Policy) netpolicy.Policy {
	if p.Mode == netpolicy.Public {
		p.AllowAll = true
	}
	return p
}

// resolveNetwork decides the run's network before anything starts.
func (r *runner) resolveNetwork() error {
	pol, err := r.runPolicy()
	if err != nil {
		return err
	}
	agent, verifier, err := NetworkPoliciesUnder(r.Options.Task, r.Options.AllowHosts, r.Options.ModelEndpoint, pol)
	if err != nil {
		return err
	}
	setup, err := SetupPolicy(r.Options.Task)
	if err != nil {
		return err
	}
	if len(r.sidecarNames()) > 0 {
		agent, verifier = PublicThroughProxy(agent), PublicThroughProxy(verifier)
	}
	r.net = &runNetwork{setup: setup, agent: agent, verifier: verifier}
	rec := &runapi.NetworkRecord{Agent: agent, Verifier: verifier, Setup: &setup, Mediated: agent.Mediated() || verifier.Mediated()}
	if r.Options.ModelEndpoint != nil {
		rec.ModelEndpoint = r.Options.ModelEndpoint.URL
	}
	r.res.Network = rec
	r.AgentNet.Host, r.VerifierNet.Host = !agent.Mediated(), !verifier.Mediated()
	return nil
}

// startNetwork makes the run's namespace and starts its proxy when a
// phase is mediated: the agent's containers join it unless their phase
// is public, and get the proxy's variables.
func (r *runner) startNetwork() error {
	n := r.net
	if !r.res.Network.Mediated {
		return nil
	}
	var err error
	if n.ns, err = netns.New(); err != nil {
		return fmt.Errorf("network namespace: %w", err)
	}
	r.NetNS = fmt.Sprintf("/proc/%d/fd/%d", os.Getpid(), n.ns.Fd())
	if n.file, err = os.OpenFile(filepath.Join(r.Options.Dir, runapi.FileNetwork), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644); err != nil {
		return err
	}
	n.log = &netproxy.Log{W: n.file}
	names := slices.Concat(n.agent.Allow.Names(), n.verifier.Allow.Names())
	noProxy := r.composeNames()
	if m := r.Options.ModelEndpoint; m != nil {
		if e, err := m.Entry(); err == nil {
			names = append(names, e.Host())
			// Clients that honour the variables would reach the model
			// through a CONNECT tunnel, which the proxy relays unread
			// (no key set); directly, they are redirected to the proxy,
			// which serves the endpoint as HTTP and sets the key.
			noProxy = append(noProxy, e.Host())
		}
	}
	// The set-up phase first (the services start and are health-checked
	// before the agent): agentNetwork switches to the agent's.
	first, pol := netpolicy.PhaseSetup, n.setup
	var services []string
	if namesServices(r.Options.Task) {
		services = r.sidecarNames()
	}
	n.proxy, err = netproxy.Start(n.ns, netproxy.Config{Phase: first, Policy: pol, Names: names, Services: services,
		NoProxy: noProxy, Model: r.Options.ModelEndpoint, Sink: n.log, Log: r.Log, Origin: n.origins.of})
	if err != nil {
		return fmt.Errorf("network proxy: %w", err)
	}
	n.unresolved = make(chan []string, 1)
	go func() { n.unresolved <- unresolvable(names) }()
	if n.agent.Mediated() {
		r.AgentNet.Env = n.proxy.Env()
	}
	if n.verifier.Mediated() && (n.verifier.Mode == netpolicy.Allowlist || n.verifier.AllowAll) {
		r.VerifierNet.Env = n.proxy.Env()
	}
	return nil
}

// composeNames are the run's compose service names and the agent's host
// name: NO_PROXY, reached directly (and still mediated).
func (r *runner) composeNames() []string {
	names := []string{env.TaskRunConfig(r.Options.Task, r.Image).Hostname}
	if sidecars := r.sidecarNames(); sidecars != nil {
		names = append(append(names, tasks.MainService), sidecars...)
	}
	return names
}

// sidecarNames are the run's compose services besides the agent's (nil
// without a compose file).
func (r *runner) sidecarNames() []string {
	cf, err := tasks.LoadCompose(r.Options.Task)
	if err != nil || cf == nil {
		return nil
	}
	names := []string{}
	for _, sc := range cf.Sidecars {
		names = append(names, sc.Name)
	}
	return names
}

// writeNetworkHosts adds the allowed names' stand-in addresses to the
// agent's /etc/hosts (after the compose services' names are written).
func (r *runner) writeNetworkHosts() error {
	n := r.net
	if n == nil || n.proxy == nil {
		return nil
	}
	entries := n.proxy.HostsEntries()
	if entries == "" {
		return nil
	}
	for _, l := range strings.Split(strings.TrimSpace(entries), "\n") {
		r.res.Network.Hosts = append(r.res.Network.Hosts, strings.ReplaceAll(l, "\t", " "))
	}
	root, err := os.OpenRoot(r.Rootfs.Path)
	if err != nil {
		return err
	}
	defer root.Close()
	old, err := readBeneath(r.Rootfs.Path, "etc/hosts")
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("/etc/hosts: %w", err)
	}
	if errors.Is(err, os.ErrNotExist) || len(old) == 0 {
		old = []byte("127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n")
	}
	if err := root.MkdirAll("etc", 0o755); err != nil {
		return err
	}
	_ = root.Remove("etc/hosts") // a link there is replaced, not followed
	if namesServices(r.Options.Task) {
		old = []byte(withoutNames(string(old), r.sidecarNames()))
	}
	data := strings.TrimRight(string(old), "\n") + "\n# authbench: allowed names, reached through the run's proxy\n" + entries
	return root.WriteFile("etc/hosts", []byte(data), 0o644)
}

// withoutNames is the hosts file hosts without the names given (so that
// their stand-in entries, appended after, are what they resolve to): a
// line left without a name is dropped; comments and other lines stay.
func withoutNames(hosts string, names []string) string {
	var out []string
	for _, line := range strings.Split(strings.TrimRight(hosts, "\n"), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || strings.HasPrefix(f[0], "#") {
			out = append(out, line)
			continue
		}
		kept := []string{f[0]}
		for _, n := range f[1:] {
			if strings.HasPrefix(n, "#") || !slices.Contains(names, n) {
				kept = append(kept, n)
			}
		}
		switch {
		case len(kept) == len(f):
			out = append(out, line) // nothing removed: as it was
		case len(kept) > 1:
			out = append(out, strings.Join(kept, "\t"))
		}
	}
	return strings.Join(out, "\n") + "\n"
}

// agentNetwork switches the proxy from the set-up phase to the agent's,
// just before the agent starts (to the verifiers' when the agent's phase
// is not mediated: nothing of the run's namespace is the agent's then).
func (r *runner) agentNetwork() {
	if n := r.net; n != nil && n.proxy != nil {
		if n.agent.Mediated() {
			n.proxy.SetPhase(netpolicy.PhaseAgent, n.agent)
		} else {
			n.proxy.SetPhase(netpolicy.PhaseVerifier, n.verifier)
		}
	}
}

// verifierNetwork switches the proxy to the verifiers' phase.
func (r *runner) verifierNetwork() {
	if n := r.net; n != nil && n.proxy != nil {
		n.proxy.SetPhase(netpolicy.PhaseVerifier, n.verifier)
	}
}

// stopNetwork stops the proxy (its open connections closed), records
// its events in brief, lists the agent's refused attempts among the
// run's denials, and releases the namespace.
func (r *runner) stopNetwork() {
	n := r.net
	if n == nil {
		return
	}
	if n.proxy != nil {
		n.proxy.Close()
		events, dropped := n.log.Events()
		r.res.Network.Events = netpolicy.Summarize(events, dropped)
		r.res.Denials = append(r.res.Denials, NetworkDenials(events)...)
		if spec := r.Options.Task.Spec; spec != nil {
			r.res.TracedSensitive = append(r.res.TracedSensitive, SensitiveConnections(events, spec.Network)...)
		}
		if err := n.log.Err(); err != nil {
			r.Log.Error("network events", zap.Error(err))
		}
	}
	if n.unresolved != nil {
		select {
		case r.res.Network.UnresolvedHosts = <-n.unresolved:
		case <-time.After(resolveTimeout):
			r.Log.Warn("the allowed names were not all resolved by the run's end")
		}
	}
	if n.file != nil {
		n.file.Close()
	}
	if n.ns != nil {
		n.ns.Close()
	}
	n.origins.close()
	r.res.Network.KernelNetABI = sandbox.KernelLandlockABI() >= 4
	if r.res.Network.Mediated {
		r.res.Network.LandlockTCP = landlockTCPNote
	}
}

// resolveTimeout bounds resolving one allowed name.
const resolveTimeout = 3 * time.Second

// unresolvable returns the names (once each) that do not resolve on the
// daemon's host, resolving them at once.
func unresolvable(names []string) []string {
	names = slices.Compact(slices.Sorted(slices.Values(names)))
	bad := make([]bool, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), resolveTimeout)
			defer cancel()
			_, err := net.DefaultResolver.LookupNetIP(ctx, "ip", name)
			bad[i] = err != nil
		}()
	}
	wg.Wait()
	var out []string
	for i, name := range names {
		if bad[i] {
			out = append(out, name)
		}
	}
	return out
}

// SensitiveConnections are the agent's connections (Event.Agents: not a
// compose service's, nor the set-up's) to a sensitive host of the spec
// that went through (allowed and connected), one per destination in
// first-seen order: a sensitive host reached is exposure as a sensitive
// file opened is.
func SensitiveConnections(events []netpolicy.Event, spec policy.NetworkSpec) []runapi.SensitiveAccess {
	var out []runapi.SensitiveAccess
	seen := map[string]bool{}
	for _, e := range events {
		if !e.Reached() || !e.Agents() {
			continue
		}
		t := e.Target()
		entry, ok := spec.SensitiveTarget(t)
		if !ok || seen[t] {
			continue
		}
		seen[t] = true
		out = append(out, runapi.SensitiveAccess{Op: audit.OpConnect, Axis: policy.Network, Path: t, Pattern: entry.String()})
	}
	return out
}

// NetworkDenials are the agent's attempts (Event.Agents) refused by the
// policy as denials (one per destination, counted), in first-seen order.
// An allowed attempt that failed (nothing listened, the dial failed) is
// no denial, nor is a compose service's or the set-up's attempt.
func NetworkDenials(events []netpolicy.Event) []audit.Denial {
	var out []audit.Denial
	index := map[string]int{}
	for _, e := range events {
		if e.Allowed || !e.Agents() {
			continue
		}
		t := e.Target()
		if i, ok := index[t]; ok {
			out[i].Count++
			continue
		}
		index[t] = len(out)
		out = append(out, audit.NetworkDenial(t))
	}
	return out
}
