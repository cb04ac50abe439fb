package taskrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"go.uber.org/zap"

	"github.com/authbench/authbench/agent/installed"
	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/internal/safefile"
	"github.com/authbench/authbench/netproxy/netpolicy"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
)

// installedRun is an installed agent, one value per harness of
// agent/installed: its harness (at the run's version), the endpoint and
// working directory it is configured for, its layer and its command. The
// run's egress proxy (network.go) lets it reach the endpoint, with the
// key injected.
type installedRun struct {
	h     installed.Harness
	cfg   installed.Run
	layer string
	argv  []string
}

// layers checks the model endpoint and makes sure the harness's layer
// exists (cached: built once per harness version), the rootfs's lower
// layer.
func (in *installedRun) layers(ctx context.Context, r *runner) ([]string, error) {
	if r.Options.Model == nil {
		return nil, runapi.WithKind(runapi.ErrorTask, fmt.Errorf("agent %s: no model configuration (--base-url, [model])", r.Options.Agent))
	}
	e := installed.Endpoint{BaseURL: r.Options.Model.BaseURL, Model: r.Options.Model.Model, MaxTokens: r.Options.Model.MaxTokens}
	if err := e.Check(); err != nil {
		return nil, runapi.WithKind(runapi.ErrorTask, fmt.Errorf("agent %s: %w", r.Options.Agent, err))
	}
	cache := r.Options.HarnessCache
	if cache == "" {
		cache = installed.DefaultCacheDir
	}
	log, err := r.CappedLog(runapi.FileBuildLog, "build log", r.LogLimit(), os.O_APPEND)
	if err != nil {
		return nil, runapi.WithKind(runapi.ErrorBuild, err)
	}
	defer r.CloseLog(log)
	layer, built, err := installed.Layer(ctx, cache, in.h, r.Options.Self, log)
	if err != nil {
		return nil, runapi.WithKind(runapi.ErrorBuild, fmt.Errorf("agent %s: %w", r.Options.Agent, err))
	}
	r.Log.Info("harness layer", zap.String("harness", in.h.Name), zap.String("layer", layer), zap.Bool("built", built))
	// The run's egress proxy lets the agent reach the endpoint and sets
	// its key (network.go).
	r.Options.ModelEndpoint = &netpolicy.ModelEndpoint{URL: e.BaseURL, Key: string(r.Options.Model.APIKey)}
	workdir := env.TaskRunConfig(r.Options.Task, r.Image).Cwd
	if workdir == "" {
		workdir = "/"
	}
	in.cfg, in.layer = installed.Run{Endpoint: e, Workdir: workdir, Version: in.h.Version}, layer
	r.res.Harness, r.res.HarnessVersion = in.h.Name+" "+in.h.Version, in.h.Version
	return []string{layer}, nil
}

// prepare writes the harness's state and configuration into the rootfs
// and makes its command for the task's instruction.
func (in *installedRun) prepare(r *runner) error {
	if err := in.writeFiles(r); err != nil {
		return runapi.WithKind(runapi.ErrorRootfs, fmt.Errorf("agent %s: %w", r.Options.Agent, err))
	}
	argv, err := in.h.Argv(in.cfg, r.Options.Task.Instruction)
	if err != nil {
		return runapi.WithKind(runapi.ErrorTask, fmt.Errorf("agent %s: %w", r.Options.Agent, err))
	}
	in.argv = argv
	return nil
}

// run runs the harness's command with its environment.
func (in *installedRun) run(ctx context.Context, r *runner) error {
	r.AgentEnv = in.env()
	return r.runAgent(ctx, in.argv)
}

// writeFiles puts the harness's state directory, owned by the agent's
// user, and its configuration into the rootfs.
func (in *installedRun) writeFiles(r *runner) error {
	root, err := os.OpenRoot(r.Rootfs.Path)
	if err != nil {
		return err
	}
	defer root.Close()
	for _, d := range []string{installed.StateRoot, installed.Home, installed.State, installed.Tmp} {
		rel := strings.TrimPrefix(d, "/")
		if err := root.MkdirAll(rel, 0o755); err != nil {
			return fmt.Errorf("harness state: %w", err)
		}
		if err := root.Lchown(rel, r.Ident.UID, r.Ident.GID); err != nil {
			return fmt.Errorf("harness state: %w", err)
		}
	}
	files, err := in.h.Files(in.cfg)
	if err != nil {
		return err
	}
	for _, f := range files {
		rel := strings.TrimPrefix(f.Path, "/")
		if err := mkdirOwned(root, strings.TrimPrefix(installed.StateRoot, "/"), path.Dir(rel), r.Ident.UID, r.Ident.GID); err != nil {
			return fmt.Errorf("harness configuration: %w", err)
		}
		_ = root.Remove(rel) // what the image has there (a link, a FIFO that would block the write) is replaced
		if err := root.WriteFile(rel, f.Data, 0o600); err != nil {
			return fmt.Errorf("harness configuration: %w", err)
		}
		if err := root.Lchown(rel, r.Ident.UID, r.Ident.GID); err != nil {
			return err
		}
	}
	return nil
}

// mkdirOwned makes dir (below base, which exists) in root, each
// directory it makes owned by uid:gid (a harness's configuration lives
// in a directory of its home it writes, .qwen).
func mkdirOwned(root *os.Root, base, dir string, uid, gid int) error {
	rest, ok := strings.CutPrefix(dir, base)
	if !ok {
		return fmt.Errorf("%s is not below %s", dir, base)
	}
	d := base
	for _, c := range strings.Split(strings.Trim(rest, "/"), "/") {
		if c == "" {
			continue
		}
		d = path.Join(d, c)
		if err := root.Mkdir(d, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		if err := root.Lchown(d, uid, gid); err != nil {
			return err
		}
	}
	return nil
}

// baseline adds the harness's runtime to the plan's baseline: its layer
// read and executable, its state read and written, its scratch and the
// reads of its runtime; all listed as widenings, never scored.
func (in *installedRun) baseline(base *policy.Baseline) []policy.Widening {
	addBaseline(base, policy.Read, installed.Root+"/**")
	addBaseline(base, policy.Execute, installed.Root+"/**")
	addBaseline(base, policy.Read, installed.StateRoot+"/**")
	addBaseline(base, policy.Write, installed.StateRoot+"/**")
	for _, p := range in.h.Scratch {
		addBaseline(base, policy.Read, p)
		addBaseline(base, policy.Write, p)
	}
	for _, p := range in.h.Reads {
		addBaseline(base, policy.Read, p)
	}
	return in.widenings()
}

// widenings record what the harness's runtime adds to the plan.
func (in *installedRun) widenings() []policy.Widening {
	detail := "the installed harness's runtime (" + in.h.Name + " " + in.h.Version + ", node " + installed.NodeVersion + "): not the task's, never scored"
	w := []policy.Widening{
		{Kind: "agent-harness", Axis: policy.Execute.String(), Pattern: installed.Root + "/**", Path: installed.Root,
			Extra: policy.AccessExecute | policy.AccessReadFile | policy.AccessReadDir, Detail: detail},
		{Kind: "agent-harness", Axis: policy.Write.String(), Pattern: installed.StateRoot + "/**", Path: installed.StateRoot,
			Extra: policy.AccessReadFile | policy.AccessReadDir | policy.AccessWriteFile, Detail: detail + "; its state and home"},
	}
	for _, p := range in.h.Scratch {
		w = append(w, policy.Widening{Kind: "agent-harness", Axis: policy.Write.String(), Pattern: p, Path: strings.TrimSuffix(p, "/**"),
			Extra: policy.AccessReadFile | policy.AccessReadDir | policy.AccessWriteFile, Detail: detail + "; scratch it writes whatever TMPDIR says"})
	}
	for _, p := range in.h.Reads {
		w = append(w, policy.Widening{Kind: "agent-harness", Axis: policy.Read.String(), Pattern: p, Path: strings.TrimSuffix(p, "/**"),
			Extra: policy.AccessReadFile, Detail: detail + "; what its runtime reads"})
	}
	return w
}

// env is the harness's environment beside the image's and the proxy's:
// its HOME and state, and the placeholder key.
func (in *installedRun) env() []string {
	return append(in.h.Env(), "OPENAI_API_KEY="+installed.PlaceholderKey)
}

// finish keeps the harness's transcript (as it recorded it, and as ATIF
// in trajectory.json). A harness that recorded nothing is noted, not an
// error of the run.
func (in *installedRun) finish(r *runner) {
	events, _, err := installed.Transcript(in.h, r.Rootfs.Upper())
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
	if err := writeJSONLines(filepath.Join(r.Options.Dir, runapi.FileHarnessTranscript), raw); err != nil {
		r.Log.Warn("harness transcript", zap.Error(err))
	}
	tr := installed.ToTrajectory(in.h, in.cfg.Model, events)
	r.res.AgentTokens, r.res.HarnessModel = trajectoryTokens(tr), in.cfg.Model
	if err := tr.WriteFile(filepath.Join(r.Options.Dir, runapi.FileTrajectory)); err != nil {
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
