package taskrun

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/netproxy"
	"github.com/authbench/authbench/netproxy/netpolicy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tasks"
)

// NetworkFile holds a run's network events (docs/trace-events.md,
// "Network events").
const NetworkFile = "network.jsonl"

// landlockTCPNote is what a mediated run records of Landlock's TCP rights
// (docs/security.md, "Network").
const landlockTCPNote = "not restricted: Landlock checks the port passed to connect() before the namespace's redirect to the proxy, " +
	"so pinning connections to the proxy's port would refuse transparent connections unrecorded; the namespace has no route and redirects every TCP connection to the proxy"

// runNetwork is a run's network while it runs.
type runNetwork struct {
	agent, verifier netpolicy.Policy
	// ns is the namespace the run made (nil: none, or the sidecars');
	// proxy and log are set when a phase is mediated.
	ns    *os.File
	proxy *netproxy.Proxy
	log   *netproxy.Log
	file  *os.File
}

// NetworkPolicies resolves the agent's and the verifiers' network of a
// run of t (docs/tasks.md, "Network policy"): allowHosts are the
// --agent-allow-host entries, model the endpoint of an agent that calls
// its model from inside the container. Bad entries are errors naming
// their field.
func NetworkPolicies(t *tasks.Task, allowHosts []string, model *netpolicy.ModelEndpoint) (agent, verifier netpolicy.Policy, err error) {
	c := t.Config
	extra, err := netpolicy.ParseAllowList("--agent-allow-host", allowHosts)
	if err != nil {
		return agent, verifier, err
	}
	phase := func(name string, n tasks.Network, extra netpolicy.AllowList, model *netpolicy.ModelEndpoint) (netpolicy.Policy, error) {
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
		})
	}
	if agent, err = phase("agent", c.Agent.Network, extra, model); err != nil {
		return agent, verifier, err
	}
	verifier, err = phase("verifier", c.Verifier.Network, netpolicy.AllowList{}, nil)
	return agent, verifier, err
}

// resolveNetwork decides the run's network before anything starts.
func (r *runner) resolveNetwork() error {
	agent, verifier, err := NetworkPolicies(r.Options.Task, r.Options.AllowHosts, r.Options.ModelEndpoint)
	if err != nil {
		return err
	}
	r.net = &runNetwork{agent: agent, verifier: verifier}
	rec := &runapi.NetworkRecord{Agent: agent, Verifier: verifier, Mediated: agent.Mediated() || verifier.Mediated()}
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
	if n.ns, err = env.NewNetNS(); err != nil {
		return fmt.Errorf("network namespace: %w", err)
	}
	r.NetNS = fmt.Sprintf("/proc/%d/fd/%d", os.Getpid(), n.ns.Fd())
	if n.file, err = os.OpenFile(filepath.Join(r.Options.Dir, NetworkFile), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644); err != nil {
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
	first, pol := netpolicy.PhaseAgent, n.agent
	if !n.agent.Mediated() {
		first, pol = netpolicy.PhaseVerifier, n.verifier
	}
	n.proxy, err = netproxy.Start(n.ns, netproxy.Config{Phase: first, Policy: pol, Names: names,
		NoProxy: noProxy, Model: r.Options.ModelEndpoint, Sink: n.log, Log: r.Log})
	if err != nil {
		return fmt.Errorf("network proxy: %w", err)
	}
	if n.agent.Mediated() {
		r.AgentNet.Env = n.proxy.Env()
	}
	if n.verifier.Mediated() && n.verifier.Mode == netpolicy.Allowlist {
		r.VerifierNet.Env = n.proxy.Env()
	}
	return nil
}

// composeNames are the run's compose service names and the agent's host
// name: NO_PROXY, reached directly (and still mediated).
func (r *runner) composeNames() []string {
	names := []string{env.TaskRunConfig(r.Options.Task, r.Image).Hostname}
	if cf, err := tasks.LoadCompose(r.Options.Task); err == nil && cf != nil {
		names = append(names, tasks.MainService)
		for _, sc := range cf.Sidecars {
			names = append(names, sc.Name)
		}
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
	old, err := root.ReadFile("etc/hosts")
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
	data := strings.TrimRight(string(old), "\n") + "\n# authbench: allowed names, reached through the run's proxy\n" + entries
	return root.WriteFile("etc/hosts", []byte(data), 0o644)
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
		if err := n.log.Err(); err != nil {
			r.Log.Error("network events", zap.Error(err))
		}
	}
	if n.file != nil {
		n.file.Close()
	}
	if n.ns != nil {
		n.ns.Close()
	}
	r.res.Network.KernelNetABI = r.res.LandlockABI >= 4
	if r.res.Network.Mediated {
		r.res.Network.LandlockTCP = landlockTCPNote
	}
}

// NetworkDenials are the agent phase's refused attempts as denials (one
// per destination, counted), in first-seen order.
func NetworkDenials(events []netpolicy.Event) []audit.Denial {
	var out []audit.Denial
	index := map[string]int{}
	for _, e := range events {
		if e.Allowed || e.Phase != netpolicy.PhaseAgent {
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
