// Package netpolicy is the pure side of a run's network (the proxy itself
// is package netproxy): Harbor's allow-list entries normalised into
// policy.HostPattern (ParseEntry, AllowList; a bad entry is an EntryError
// naming its field), the network modes (public, no-network, allowlist),
// each phase's Policy from task.toml, run-time entries and a model
// endpoint (ResolvePhase, with its precedence), the ModelEndpoint whose key
// the proxy injects, and the Event schema of the run's network file with
// its Summary. Nothing here touches the kernel: the task loader, the
// run API and readers of network events import it without the proxy.
package netpolicy
