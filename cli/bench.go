package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"

	"github.com/authbench/authbench/capability"
	"github.com/authbench/authbench/cli/core"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/authbench/authbench/bench"
	"github.com/authbench/authbench/internal/termtext"
	"github.com/authbench/authbench/netproxy/netpolicy"
	"github.com/authbench/authbench/oracle"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tasks"
)

// benchFlags are the flags of `authbench bench`.
type benchFlags struct {
	tasks          string
	sources        string
	agent          string
	trials         int
	parallel       int
	shard          string
	semantics      string
	caps           string
	allowHosts     []string
	requests       requestFlags
	trustVerifiers bool
	attribute      bool
	out            string
	baseMap        []string
	embedded       embeddedFlags
	models         modelFlags
	pipeline       pipelineFlags
}

func (a *app) benchCmd() *cobra.Command {
	var f benchFlags
	cmd := &cobra.Command{
		Use:   `bench --tasks DIR (--sources LIST --agent oracle|cmd:"..."|openai:MODEL | --pipeline published|FILE --generator LIST --executor LIST) --out DIR`,
		Short: "Run the benchmark: tasks × policy sources × agents × trials, into a results database",
		Long: `Run every task of --tasks under every policy source, with the agent, --trials
times, through the daemon (embedded when none listens; root), and store one
record per run in DIR/results.db, each run's files in its trial directory
(Harbor's job layout: DIR/config.json, DIR/result.json, DIR/<trial>/...).

Sources (comma-separated): unconstrained (no Landlock), spec (the spec's
required_permissions), trace (the oracle's traced needs), allow-all (/** on
every axis), dir:PATH (PATH/<task>.json; a missing or malformed file is an
invalid policy: scored 0 and run as deny-all), gen:GENERATOR (a policy generated
per task and trial by a generator of "authbench generate": heuristic, spec,
allow-all, openai:MODEL, st:MODEL or cmd:"COMMAND", which must come last and takes the
rest of the list, commas included; an invalid generated policy is kept in the
trial's generation/ directory, classified invalid_policy and scored 0, and
the agent does not run). With --agent oracle, sensitive
tasks also run the shortcut agent, so that exposure is measured. --agent
openai:MODEL runs a model as the agent (see "authbench task run --help"),
configured by the model flags, the config file's [model] table and
OPENAI_BASE_URL / OPENAI_API_KEY.

--pipeline published runs the published stages instead of --sources and
--agent: per task the oracle under the spec, 3 generation attempts per
--generator (scored, no agent), 3 unconstrained replays per --executor, 1
replay under each generator's first valid policy and 1 under the curated
spec, each run stored with its stage and attempt; --pipeline FILE reads
another layout (TOML or JSON, docs/benchmark.md); --STAGE-attempts N sets a
stage's count.

The same command again resumes: finished runs are skipped, runs that ended in
an error are run again. An out dir made with other settings is refused.
Broken tasks are listed and skipped. Exit status 0 when every run is stored.`,
		Args: exactArgs(0),
		RunE: func(*cobra.Command, []string) error { return a.runBench(f) },
	}
	cmd.AddCommand(a.benchMergeCmd())
	fl := cmd.Flags()
	fl.StringVar(&f.tasks, "tasks", "", "the tasks `DIR` (required)")
	fl.StringVar(&f.sources, "sources", "", "policy sources, comma-separated `LIST` (required)")
	fl.StringVar(&f.agent, "agent", "", `oracle, cmd:"COMMAND" or openai:MODEL (required)`)
	fl.IntVar(&f.trials, "trials", 1, "runs of each task, source and agent")
	fl.IntVar(&f.parallel, "parallel", runtime.NumCPU(), "runs in flight at once")
	fl.StringVar(&f.shard, "shard", "", "run only the tasks of shard `I/N` (index in lexical order modulo N)")
	fl.StringVar(&f.semantics, "semantics", string(policy.SemanticsPublished), "enforcement semantics: published or precise")
	fl.StringVar(&f.caps, "caps", "", "the agents' capabilities: none, docker (Docker's default set) or a `LIST` such as CHOWN,FOWNER (default: each task's)")
	fl.StringArrayVar(&f.allowHosts, "agent-allow-host", nil, "let every run's agent reach `HOST:PORT` through its egress proxy (repeatable; makes the agent's network an allowlist, docs/tasks.md)")
	fl.BoolVar(&f.trustVerifiers, "trust-verifiers", false, "keep runs whose verifier consumed agent-written files, or was not traced completely, in success rates")
	fl.BoolVar(&f.attribute, "attribute", false, "re-run each failed run with its deciding denial's permission added, to confirm why it failed")
	fl.StringVar(&f.out, "out", "", "the out `DIR` (required)")
	addImageMapFlag(fl, &f.baseMap, imageMapUsage)
	f.embedded.register(fl, imagesDirUsage, "run untraced when embedded (no eBPF; no traced exposure; runs are verifier_untraced, left out of rates unless --trust-verifiers)")
	f.models.register(fl, "agent")
	f.requests.register(fl)
	f.pipeline.register(fl)
	return cmd
}

// config checks the flags and builds the bench's configuration.
func (f benchFlags) config() (bench.Config, error) {
	pl, err := f.pipeline.build()
	if err != nil {
		return bench.Config{}, err
	}
	required := []struct{ flag, v string }{{"--tasks", f.tasks}, {"--out", f.out}}
	if pl == nil {
		required = append(required, struct{ flag, v string }{"--sources", f.sources}, struct{ flag, v string }{"--agent", f.agent})
	}
	for _, req := range required {
		if req.v == "" {
			return bench.Config{}, core.UsageErrorf("bench: %s is required", req.flag)
		}
	}
	sources, agentName, err := f.pipelineSources(pl)
	if err != nil {
		return bench.Config{}, err
	}
	shard, err := bench.ParseShard(f.shard)
	if err != nil {
		return bench.Config{}, core.UsageErrorf("--shard: %v", err)
	}
	if f.semantics != string(policy.SemanticsPublished) && f.semantics != string(policy.SemanticsPrecise) {
		return bench.Config{}, core.UsageErrorf("--semantics %q: want published or precise", f.semantics)
	}
	if f.caps != "" {
		if _, err := capability.ParseSet(f.caps); err != nil {
			return bench.Config{}, core.UsageErrorf("--caps: %v", err)
		}
	}
	if _, err := netpolicy.ParseAllowList("--agent-allow-host", f.allowHosts); err != nil {
		return bench.Config{}, core.UsageErrorf("%v", err)
	}
	rq := runapi.TaskRequest{Agent: agentName}
	if agentName == runapi.AgentOracle {
		// The bench's requester asks for the oracle and the shortcut
		// (bench.Config.checkRequests checks the decider for them).
		rq.Agent = ""
	}
	if err := f.requests.apply(&rq); err != nil {
		return bench.Config{}, err
	}
	if f.trials < 1 {
		return bench.Config{}, core.UsageErrorf("--trials must be at least 1")
	}
	if f.parallel < 1 {
		return bench.Config{}, core.UsageErrorf("--parallel must be at least 1")
	}
	m, err := imageMap(f.baseMap)
	if err != nil {
		return bench.Config{}, err
	}
	model, err := f.models.agentConfig(agentName)
	if err != nil {
		return bench.Config{}, err
	}
	genModel, err := generatorModel(sources, f.models)
	if err != nil {
		return bench.Config{}, err
	}
	return bench.Config{TasksDir: f.tasks, Sources: sources, Agent: f.agent, Model: model, GenModel: genModel, Trials: f.trials, Parallel: f.parallel,
		Shard: shard, Semantics: f.semantics, Caps: f.caps, AgentAllowHosts: f.allowHosts, TrustVerifiers: f.trustVerifiers, BaseMap: m, Out: f.out, Attribute: f.attribute,
		Requests: rq.Requests, MaxRequests: rq.MaxRequests, RequestTimeoutS: rq.RequestTimeoutS, Pipeline: pl}, nil
}

func (a *app) runBench(f benchFlags) error {
	cfg, err := f.config()
	if err != nil {
		return err
	}
	c := a.DaemonClient()
	embedded := c == nil
	if c != nil {
		c.Close() // asked only whether a daemon answers
	}
	api, done, err := a.taskAPI(f.embedded)
	if err != nil {
		return err
	}
	defer done()
	// The trace source: the required set of a spec recorded from traced
	// oracle runs, resolved in the task's image when it is local.
	recordTrace := func(ctx context.Context, t *tasks.Task) (*policy.Policy, error) {
		opts := oracle.RecordOptions{RunOptions: oracle.RunOptions{BaseMap: cfg.BaseMap, Semantics: cfg.Semantics}}
		if embedded {
			root, _, err := oracle.ImageRoot(ctx, api, t, cfg.BaseMap)
			if err != nil {
				return nil, err
			}
			opts.Root = root
		}
		// Sufficient by construction (docs/oracle.md): a recording the
		// recorder refuses is an error of the trace source's runs, with
		// the recorder's reason, never a policy run as recorded.
		opts.Verify = true
		spec, _, err := oracle.Record(ctx, api, t, opts)
		if oracle.IsRefusal(err) {
			return nil, runapi.WithKind(runapi.ErrorRecording, fmt.Errorf("the recorder refused the task: %w", err))
		}
		if err != nil {
			return nil, err
		}
		pol := runapi.SpecPolicy(spec) // the network axis too, when declared
		pol.Source = "trace (" + t.Name + ")"
		return pol, nil
	}
	ctx, stop := interruptContext()
	defer stop()
	progress := bench.NewLineProgress(a.Stderr)
	if file, ok := a.Stderr.(*os.File); ok && term.IsTerminal(int(file.Fd())) {
		progress = bench.NewBarProgress(a.Stderr)
	}
	opts := bench.Options{API: api, Progress: progress, Version: core.Version, Log: a.Log, TraceRecorder: recordTrace}
	if embedded {
		// Attribution reads refused scripts' "#!" lines in the task image.
		opts.ImageRoot = func(ctx context.Context, t *tasks.Task) (*policy.Root, error) {
			root, _, err := oracle.ImageRoot(ctx, api, t, cfg.BaseMap)
			return root, err
		}
	}
	sum, err := bench.Run(ctx, cfg, opts)
	var mismatch *bench.SettingsMismatchError
	if errors.As(err, &mismatch) {
		return core.Usage(err)
	}
	if sum != nil {
		if a.JSONOut {
			if jerr := a.PrintJSON(sum); jerr != nil && err == nil {
				err = jerr
			}
		} else {
			s := sum.Stats
			fmt.Fprintf(a.Stderr, "bench %s: %d of %d runs stored (%d resumed), %d failed, %d errors, %d tasks skipped\n",
				termtext.Escape(cfg.Out), s.NTrials, sum.NTotal, s.NResumed, s.NFailed, s.NErrors, len(sum.Skipped))
		}
	}
	if err != nil {
		return interrupted(fmt.Errorf("bench: %w", err))
	}
	return nil
}
