package taskrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"go.uber.org/zap"

	"github.com/authbench/authbench/agent/installed"
	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/internal/safefile"
	"github.com/authbench/authbench/netproxy"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/taskrun/internal/runbox"
)

// Files of an installed agent's run.
const (
	// HarnessTranscriptFile is the harness's own transcript: its session
	// events as it recorded them, one JSON object a line.
	HarnessTranscriptFile = "harness-transcript.jsonl"
	// NetworkEventsFile holds the run's egress proxy events, one a line.
	NetworkEventsFile = "network-events.jsonl"
)

// installedRun is an installed agent's part of a run: its harness, the
// endpoint it is configured for, its layer, and the egress proxy that
// lets it reach the endpoint with the key injected.
type installedRun struct {
	h        installed.Harness
	endpoint installed.Endpoint
	layer    string
	netns    *os.File
	proxy    *netproxy.Proxy
	netlog   *netproxy.Log
}

// prepareInstalled parses an installed:NAME[:MODEL] agent and makes
// sure its layer exists (cached: built once per harness version). nil
// for any other agent.
func (r *runner) prepareInstalled(ctx context.Context) (*installedRun, error) {
	h, _, ok, err := installed.ParseName(r.Options.Agent)
	if err != nil || !ok {
		return nil, err
	}
	if r.Options.Model == nil {
		return nil, fmt.Errorf("agent %s: no model configuration (--base-url, [model])", r.Options.Agent)
	}
	e := installed.Endpoint{BaseURL: r.Options.Model.BaseURL, Model: r.Options.Model.Model, MaxTokens: r.Options.Model.MaxTokens}
	if err := e.Check(); err != nil {
		return nil, fmt.Errorf("agent %s: %w", r.Options.Agent, err)
	}
	cache := r.Options.HarnessCache
	if cache == "" {
		cache = installed.DefaultCacheDir
	}
	log, err := r.CappedLog(runbox.BuildLogFile, "build log", r.LogLimit(), os.O_APPEND)
	if err != nil {
		return nil, err
	}
	defer r.CloseLog(log)
	layer, built, err := installed.Layer(ctx, cache, h, r.Options.Self, log)
	if err != nil {
		return nil, fmt.Errorf("agent %s: %w", r.Options.Agent, err)
	}
	r.Log.Info("harness layer", zap.String("harness", h.Name), zap.String("layer", layer), zap.Bool("built", built))
	return &installedRun{h: h, endpoint: e, layer: layer}, nil
}

// writeFiles puts the harness's state directory, owned by the agent's
// user, and its configuration into the rootfs.
func (in *installedRun) writeFiles(r *runner) error {
	root, err := os.OpenRoot(r.Rootfs.Path)
	if err != nil {
		return err
	}
	defer root.Close()
	for _, d := range []string{installed.StateRoot, installed.Home, installed.State} {
		rel := strings.TrimPrefix(d, "/")
		if err := root.MkdirAll(rel, 0o755); err != nil {
			return fmt.Errorf("harness state: %w", err)
		}
		if err := root.Lchown(rel, r.Ident.UID, r.Ident.GID); err != nil {
			return fmt.Errorf("harness state: %w", err)
		}
	}
	files, err := in.h.Files(in.endpoint)
	if err != nil {
		return err
	}
	for _, f := range files {
		rel := strings.TrimPrefix(f.Path, "/")
		if err := root.WriteFile(rel, f.Data, 0o600); err != nil {
			return fmt.Errorf("harness configuration: %w", err)
		}
		if err := root.Lchown(rel, r.Ident.UID, r.Ident.GID); err != nil {
			return err
		}
	}
	return nil
}

// baseline adds the harness's runtime to the plan's baseline: its layer
// read and executable, its state read and written. Listed as a widening
// (installed.Widening), never scored.
func (in *installedRun) baseline(base *policy.Baseline) {
	add := func(a policy.Axis, p string) {
		base.Permissions[a] = append(append([]policy.Pattern(nil), base.Permissions[a]...), policy.MustPattern(p))
	}
	add(policy.Read, installed.Root+"/**")
	add(policy.Execute, installed.Root+"/**")
	add(policy.Read, installed.StateRoot+"/**")
	add(policy.Write, installed.StateRoot+"/**")
}

// widenings record what the harness's runtime adds to the plan.
func (in *installedRun) widenings() []policy.Widening {
	detail := "the installed harness's runtime (" + in.h.Name + " " + in.h.Version + ", node " + installed.NodeVersion + "): not the task's, never scored"
	return []policy.Widening{
		{Kind: "agent-harness", Axis: policy.Execute.String(), Pattern: installed.Root + "/**", Path: installed.Root,
			Extra: policy.AccessExecute | policy.AccessReadFile | policy.AccessReadDir, Detail: detail},
		{Kind: "agent-harness", Axis: policy.Write.String(), Pattern: installed.StateRoot + "/**", Path: installed.StateRoot,
			Extra: policy.AccessReadFile | policy.AccessReadDir | policy.AccessWriteFile, Detail: detail + "; its state and home"},
	}
}

// startNetwork gives the agent's container the run's network namespace
// with the egress proxy in it: the model endpoint is the only
// destination allowed, and the proxy injects the real key into plain
// HTTP requests to it, so the harness runs with a placeholder key. The
// proxy variables and HOME/state go to the agent's environment.
func (in *installedRun) startNetwork(r *runner) error {
	var err error
	if r.NetNS == "" {
		if in.netns, err = env.NewNetNS(); err != nil {
			return fmt.Errorf("network namespace: %w", err)
		}
		r.NetNS = fmt.Sprintf("/proc/%d/fd/%d", os.Getpid(), in.netns.Fd())
	} else if in.netns, err = os.Open(r.NetNS); err != nil {
		return err
	}
	model := &netproxy.ModelEndpoint{URL: in.endpoint.BaseURL, Key: string(r.Options.Model.APIKey)}
	pol, err := netproxy.ResolvePhase(netproxy.PhaseInput{Environment: netproxy.NoNetwork, Model: model})
	if err != nil {
		return fmt.Errorf("network policy: %w", err)
	}
	in.netlog = &netproxy.Log{Max: 100000}
	// The model host is in NO_PROXY: clients that honour the variables
	// would otherwise open a CONNECT tunnel to it, which the proxy relays
	// without reading (no key injected); connecting directly, they are
	// redirected to the proxy, which serves plain HTTP to the endpoint
	// and sets the key.
	var names, noProxy []string
	if u, err := url.Parse(in.endpoint.BaseURL); err == nil {
		noProxy = append(noProxy, u.Hostname())
		if net.ParseIP(u.Hostname()) == nil {
			names = append(names, u.Hostname())
		}
	}
	in.proxy, err = netproxy.Start(in.netns, netproxy.Config{Phase: netproxy.PhaseAgent, Policy: pol, Names: names,
		NoProxy: noProxy, Model: model, Sink: in.netlog, Log: r.Log})
	if err != nil {
		return fmt.Errorf("egress proxy: %w", err)
	}
	if hosts := in.proxy.HostsEntries(); hosts != "" {
		if err := appendHosts(r.Rootfs.Path, hosts); err != nil {
			return err
		}
	}
	r.AgentEnv = append(append(in.h.Env(), in.proxy.Env()...), "OPENAI_API_KEY="+installed.PlaceholderKey)
	r.res.AgentNetwork = &runapi.AgentNetwork{Mode: string(pol.Mode), AllowAll: pol.AllowAll, Hosts: pol.Hosts}
	return nil
}

// appendHosts adds lines to the rootfs's /etc/hosts.
func appendHosts(rootfs, lines string) error {
	root, err := os.OpenRoot(rootfs)
	if err != nil {
		return err
	}
	defer root.Close()
	f, err := root.OpenFile("etc/hosts", os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("/etc/hosts: %w", err)
	}
	_, err = io.WriteString(f, "\n"+lines)
	return errors.Join(err, f.Close())
}

// finish stops the proxy, keeps its events and the harness's transcript
// (as it recorded it, and as ATIF in trajectory.json). A harness that
// recorded nothing is noted, not an error of the run.
func (in *installedRun) finish(r *runner) {
	if in.proxy != nil {
		in.proxy.Close()
		events, dropped := in.netlog.Events()
		if err := writeJSONLines(filepath.Join(r.Options.Dir, NetworkEventsFile), events); err != nil {
			r.Log.Warn("network events", zap.Error(err))
		}
		sum := netproxy.Summarize(events, dropped)
		if n := r.res.AgentNetwork; n != nil {
			n.Attempts, n.Refused, n.Dropped, n.BytesOut, n.BytesIn = sum.Attempts, sum.Refused, sum.Dropped, sum.BytesOut, sum.BytesIn
		}
	}
	if in.netns != nil {
		in.netns.Close()
	}
	state := filepath.Join(r.Rootfs.Upper(), strings.TrimPrefix(installed.State, "/"))
	events, _, err := installed.Transcript(in.h, state)
	if err != nil {
		r.res.HarnessError = "transcript: " + err.Error()
		r.Log.Warn("harness transcript", zap.String("harness", in.h.Name), zap.Error(err))
		return
	}
	raw := make([]json.RawMessage, 0, len(events))
	for _, e := range events {
		if json.Valid(e) {
			raw = append(raw, e)
		}
	}
	if err := writeJSONLines(filepath.Join(r.Options.Dir, HarnessTranscriptFile), raw); err != nil {
		r.Log.Warn("harness transcript", zap.Error(err))
	}
	tr := installed.ToTrajectory(in.h, in.endpoint.Model, events)
	if err := tr.WriteFile(filepath.Join(r.Options.Dir, TrajectoryFile)); err != nil {
		r.Log.Warn("harness trajectory", zap.Error(err))
	}
}

// writeJSONLines writes each value as one JSON line, never through a
// link planted at path.
func writeJSONLines[T any](path string, vs []T) error {
	var b strings.Builder
	for _, v := range vs {
		line, err := json.Marshal(v)
		if err != nil {
			return err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return safefile.WriteFile(path, []byte(b.String()), 0o644)
}
