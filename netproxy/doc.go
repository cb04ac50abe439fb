// Package netproxy is a run's egress proxy: the only way out of the run's
// private network namespace, to the host:port destinations the phase's
// network policy allows, with every connection attempt recorded as a
// netpolicy.Event.
//
// # Shape
//
//   - netpolicy/ (pure, table-tested, no kernel): allow-list entries
//     (ParseEntry: "host", "host:port", "host:*", "*.domain", "[v6]:port",
//     an http(s) URL without a path; anything else is an EntryError naming
//     its field) matched by policy.HostPattern, Harbor's network modes
//     (public, no-network, allowlist), the precedence that gives each phase
//     its Policy (ResolvePhase), the model endpoint, the event schema.
//   - proxy.go, httpproxy.go, relay.go: the server; netns.go, nfqueue.go,
//     pid.go: the namespace's listener, redirect rules, SYN queue and the
//     connecting process.
//   - event.go: a bounded Log sink of the events.
//
// # How the namespace is bridged
//
// Start joins the run's namespace on one locked thread just long enough
// to open the listener (127.0.0.1:P and [::1]:P), then returns it to the
// host's namespace: the listening socket belongs to the run's namespace
// for its life, while every outgoing connection is dialled from the
// host's. The container gets no route and no interface besides lo: a
// connection to any address outside 127/8 and ::1 fails at once with
// ENETUNREACH, UDP included. nftables rules in the namespace
// (installRedirect) bring every TCP connection made there to P, so a
// client that ignores HTTP_PROXY is still mediated, never routed around;
// the proxy reads the original destination (SO_ORIGINAL_DST):
//
//   - a stand-in address 127.88.x.y (HostsEntries maps each allowed name
//     to one in the run's /etc/hosts: clients that ignore the variables
//     reach allowed names at their usual name and port) is redirected to
//     P and relayed to the name. Wildcard entries and names not allowed
//     have no stand-in: they are reached through the variables only, and
//     resolving them in the container fails.
//   - the SYN of a connection to another loopback address is queued to
//     the proxy (netfilter queue, synQueue) before the kernel answers it:
//     a service of the run's own namespace listens there (a compose
//     sidecar, a server the agent started: always allowed, relayed, Local)
//     or the policy allows the host's loopback address (tests use loopback
//     servers) — it is redirected to P; otherwise the attempt is recorded
//     as refused and the SYN goes on, so the kernel refuses it at connect()
//     as it would without a proxy (ECONNREFUSED: a readiness probe is not
//     fooled).
//   - P itself: proxy clients. CONNECT host:port (HTTPS_PROXY, ALL_PROXY)
//     is a tunnel; an absolute-URI request (HTTP_PROXY) is forwarded as
//     origin-form, one event per request. A refusal is a 403 whose body
//     says why; a failure to resolve or connect a 502 naming it.
//
// The proxy's own sockets into the namespace carry a random mark the
// rules let through.
//
// # Model endpoint and key injection
//
// A model agent that runs inside the container (an installed harness)
// calls its model through the proxy: the proxy sets `Authorization:
// Bearer <Key>` on every plain-HTTP request to the endpoint's host and
// port (through the variables or directly), so the agent runs with
// netpolicy.Placeholder and the key never enters the container. Over
// HTTPS the proxy only tunnels: it does not intercept TLS, so it cannot
// inject there and the harness would need the real key — point the
// harness at a plain-HTTP endpoint (a loopback gateway of the host)
// instead. A task run takes the endpoint as one option and does the
// rest (its agent phase allows the endpoint, its proxy injects the key):
//
//	opts.ModelEndpoint = &netpolicy.ModelEndpoint{URL: cfg.BaseURL, Key: cfg.APIKey.Reveal()}
//	// the harness's config: base URL cfg.BaseURL, API key netpolicy.Placeholder
//
// Used directly:
//
//	pol, err := netpolicy.ResolvePhase(netpolicy.PhaseInput{..., Model: m})
//	p, err := netproxy.Start(ns, netproxy.Config{Phase: netpolicy.PhaseAgent, Policy: pol, Model: m, Sink: log})
//	env = append(env, p.Env()...)
//
// # Events
//
// One netpolicy.Event per attempt (a CONNECT tunnel, a transparent
// connection, an absolute-URI request, a refused loopback SYN): phase,
// pid, host, port, how it came, allowed or refused and why, address
// dialled, bytes each way, duration, SNI seen, whether the key was
// injected, whether the idle timeout closed it. The pid is the process
// that connected the client's socket: a sock_diag query for the exact
// connection inside the namespace gives the socket's cookie, under which
// eBPF programs at the cgroup v2 root (cgroup/connect4, connect6:
// bpf/connpid.c) recorded the connecting process (TCP has no
// SO_PEERCRED); without a record, the process holding the socket among
// the /proc/PID/fd links of the processes in that namespace. It is looked
// up before the client gets an answer; 0 when it could not be found. The
// schema is in docs/trace-events.md.
//
// # Bounds
//
// A relay holds two 32 KiB buffers whatever passes (gigabytes stay
// bounded; byte counts are int64); a connection idle both ways for
// IdleTimeout is closed; resolving and dialling take at most
// DialTimeout; a Log keeps at most Max events and counts the rest. At
// most MaxConns client connections are open at once, at most
// MaxConnsPerProcess of them one process's (found before the connection
// is served); past either, a connection is reset and counted
// (OverLimit).
package netproxy
