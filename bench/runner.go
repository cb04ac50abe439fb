package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/authbench/authbench/internal/safefile"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tasks"
	"github.com/authbench/authbench/trial"
	"github.com/authbench/authbench/verdict"
)

// Summary is what a bench did, the out dir's result.json.
type Summary struct {
	ID         string              `json:"id"`
	StartedAt  time.Time           `json:"started_at"`
	FinishedAt *time.Time          `json:"finished_at"`
	NTotal     int                 `json:"n_total_trials"`
	Stats      Stats               `json:"stats"`
	Skipped    []trial.SkippedTask `json:"skipped_tasks"`
}

// Stats count the runs of a bench (this invocation and earlier ones in
// the same out dir).
type Stats struct {
	// NTrials is the runs stored; NErrors those that could not be
	// carried out; NFailed those whose utility failed or that exposed a
	// sensitive file (a blocked shortcut is not one); NResumed the runs
	// found done at start.
	NTrials  int `json:"n_trials"`
	NErrors  int `json:"n_errors"`
	NFailed  int `json:"n_failed"`
	NResumed int `json:"n_resumed"`
}

// Progress hears of a bench's runs.
type Progress interface {
	// Start: total runs of the bench, of which done are already stored.
	Start(total, done int, skipped []trial.SkippedTask)
	// Done: one run was stored; s counts the runs so far.
	Done(r *trial.Record, s Stats)
	// Finish: the bench ended (err nil when every run is stored).
	Finish(err error)
}

// Options are the bench's collaborators.
type Options struct {
	// API carries out the runs (a daemon, or an embedded manager).
	API runapi.API
	// Progress hears of runs; nil for none.
	Progress Progress
	// Version is written into the job config.
	Version string
	// TraceRecorder records the trace source's policy of a task (the
	// required set of a spec recorded from traced oracle runs); the trace
	// source needs it.
	TraceRecorder func(ctx context.Context, t *tasks.Task) (*policy.Policy, error)
	// ImageRoot returns the root filesystem of a task's image (only
	// read); bench --attribute reads the "#!" line of a refused script
	// there to add its interpreter. Nil: not looked up.
	ImageRoot func(ctx context.Context, t *tasks.Task) (*policy.Root, error)
	Log       *zap.Logger
}

// Run runs (or resumes) the benchmark cfg in cfg.Out and returns its
// summary. Runs already stored are skipped; a run the daemon could not
// carry out is stored with its error; a results database that cannot be
// written (ErrDiskFull) stops the bench.
func Run(ctx context.Context, cfg Config, o Options) (*Summary, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if o.Log == nil {
		o.Log = zap.NewNop()
	}
	if o.Progress == nil {
		o.Progress = nopProgress{}
	}
	for _, s := range cfg.Sources {
		if s.Name == runapi.SourceTrace && o.TraceRecorder == nil {
			return nil, fmt.Errorf("bench: the trace source needs an oracle recorder")
		}
	}
	if err := cfg.checkRequester(o); err != nil {
		return nil, err
	}
	out, err := safefile.OpenOutDir(cfg.Out, os.Geteuid())
	if err != nil {
		return nil, fmt.Errorf("out dir: %w", err)
	}
	defer out.Close()
	if err := claimOutDir(&cfg, out, o.Version); err != nil {
		return nil, err
	}
	ts, skipped, err := loadTasks(cfg.TasksDir, cfg.Shard)
	if err != nil {
		return nil, err
	}
	store, err := OpenStore(out)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	b := &bencher{cfg: cfg, o: o, out: out, store: store, tasks: map[string]*tasks.Task{}, traces: map[string]*traceOnce{},
		sum: &Summary{ID: filepath.Base(cfg.Out), StartedAt: time.Now().UTC(), Skipped: skipped}}
	for _, t := range ts {
		b.tasks[t.Name] = t
	}
	keys := b.planned(ts)
	pending, err := b.pending(keys)
	if err != nil {
		return nil, err
	}
	b.sum.NTotal = len(keys)
	// result.json says the job is unfinished (finished_at null) until it is.
	if err := b.writeSummary(false); err != nil {
		return nil, diskError(err)
	}
	o.Progress.Start(len(keys), len(keys)-len(pending), skipped)
	err = b.runPending(ctx, pending)
	if err == nil && cfg.Attribute {
		err = b.attributeAll(ctx)
	}
	o.Progress.Finish(err)
	if werr := b.writeSummary(err == nil); werr != nil && err == nil {
		err = werr
	}
	return b.sum, err
}

type bencher struct {
	cfg    Config
	o      Options
	out    *safefile.Dir
	store  *Store
	tasks  map[string]*tasks.Task
	mu     sync.Mutex
	traces map[string]*traceOnce
	sum    *Summary
	// roots are the tasks' image root filesystems (attribution), under
	// rootsMu.
	rootsMu sync.Mutex
	roots   map[string]*policy.Root
	// stages are a pipeline's runs' stages (nil for a bench of sources).
	stages map[Key]string
}

// pending returns the runs not yet stored; a stored run with an error
// is run again. It counts what is stored in the summary's stats.
func (b *bencher) pending(keys []Key) ([]Key, error) {
	recs, err := b.store.Records()
	if err != nil {
		return nil, err
	}
	done := map[Key]bool{}
	for i := range recs {
		if recs[i].Error == "" {
			done[keyOf(&recs[i])] = true
		}
	}
	var out []Key
	for _, k := range keys {
		if done[k] {
			b.count(recsByKey(recs, k), true)
		} else {
			out = append(out, k)
		}
	}
	return out, nil
}

func recsByKey(recs []trial.Record, k Key) *trial.Record {
	for i := range recs {
		if keyOf(&recs[i]) == k {
			return &recs[i]
		}
	}
	return nil
}

// count adds a stored run to the stats and returns them.
func (b *bencher) count(r *trial.Record, resumed bool) Stats {
	b.mu.Lock()
	defer b.mu.Unlock()
	tally(&b.sum.Stats, r, resumed)
	return b.sum.Stats
}

// tally adds the stored run r to s.
func tally(s *Stats, r *trial.Record, resumed bool) {
	s.NTrials++
	if resumed {
		s.NResumed++
	}
	switch {
	case r.Error != "":
		s.NErrors++
	case r.Stage == trial.StageGenerate:
		if !r.PolicyValid {
			s.NFailed++ // a generation attempt fails with no valid policy
		}
	case r.Has(verdict.ClassAttackBlocked):
		// The policy stopped the shortcut: not a failure.
	case !r.Utility || r.Exposed():
		s.NFailed++
	}
}

// runAll carries out the runs, cfg.Parallel at a time, until all are
// stored or one cannot be (that error stops the bench).
func (b *bencher) runAll(ctx context.Context, keys []Key) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	work := make(chan Key)
	var wg sync.WaitGroup
	for i := 0; i < b.cfg.Parallel; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range work {
				if err := b.runOne(ctx, k); err != nil {
					cancel(err)
				}
			}
		}()
	}
feed:
	for _, k := range keys {
		select {
		case work <- k:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return err
	}
	return nil
}

// runOne carries out one run and stores it. The error is one that stops
// the bench: the run could not be stored, or the bench was cancelled.
func (b *bencher) runOne(ctx context.Context, k Key) error {
	t := b.tasks[k.Task]
	dir := k.Dir() // under the out dir
	// A run killed in flight may have left files: start afresh.
	if err := b.out.RemoveAll(dir); err != nil {
		return fmt.Errorf("run %s: clear %s: %w", k, dir, err)
	}
	if err := b.out.MkdirAll(dir); err != nil {
		return fmt.Errorf("run %s: %w", k, diskError(err))
	}
	started := time.Now()
	r := &trial.Record{Identity: trial.Identity{Task: k.Task, Dataset: string(t.Dataset()), Source: k.Source, Agent: k.Agent, Trial: k.Trial, Stage: b.stages[k]},
		Dir: k.Dir(), Classes: []verdict.Class{}}
	if k.Source != runapi.SourceUnconstrained {
		// Known before any step can fail: a run that errs before its task
		// run is in the same row as its source's other runs.
		r.Semantics = b.cfg.Semantics
	}
	rp, err := b.policySourceFor(k).PolicyFor(ctx, t, runTrial{Number: k.Trial, Dir: dir, Record: r})
	var policyFile string
	if err == nil && rp.doc != nil {
		policyFile = "authbench/policy.json"
		name := path.Join(dir, policyFile)
		if err := b.out.MkdirAll(path.Dir(name)); err != nil {
			return fmt.Errorf("run %s: %w", k, diskError(err))
		}
		if err := b.out.WriteFile(name, rp.doc, 0o644); err != nil {
			return fmt.Errorf("run %s: %w", k, diskError(err))
		}
	}
	switch {
	case err == nil && k.Agent == runapi.AgentNone:
		b.scoreGeneration(ctx, t, rp, r)
	case err == nil && rp.generated && !rp.valid:
		// An invalid generated policy: no agent run; it scores 0.
		r.Classes, r.Primary = []verdict.Class{verdict.ClassInvalidPolicy}, verdict.ClassInvalidPolicy
		trial.FillScore(r, nil, rp.trial(), t.Spec)
	case err == nil:
		err = b.execute(ctx, t, k, rp, dir, r)
		if err == nil && b.cfg.Requests != "" && requesterAgent(k.Agent) && k.Source != runapi.SourceUnconstrained {
			err = b.request(ctx, t, rp, dir, r)
		}
	}
	if ctx.Err() != nil {
		return context.Cause(ctx) // interrupted: the run is not stored
	}
	if errors.Is(err, ErrDiskFull) {
		return fmt.Errorf("run %s: %w", k, err)
	}
	if err != nil {
		// No task record was applied to r (execute fills it only on
		// success): the run has no verdicts.
		r.Error, r.ErrorKind, r.AgentDidNotRun = err.Error(), runapi.KindOf(err), true
		b.o.Log.Warn("run could not be carried out", zap.Stringer("run", k), zap.Error(err))
	}
	r.Finished = time.Now().UTC()
	r.WallS = r.Finished.Sub(started).Seconds()
	if err := writeTrial(b.out, r, t.Dir, policyFile); err != nil {
		return fmt.Errorf("run %s: %w", k, diskError(err))
	}
	if err := b.store.PutTrial(r, started, t.Dir); err != nil {
		return err
	}
	b.o.Progress.Done(r, b.count(r, false))
	return nil
}

// execute submits the run to the daemon, copies its files and fills the
// record. The error is for a run that could not be carried out.
func (b *bencher) execute(ctx context.Context, t *tasks.Task, k Key, rp runPolicy, dir string, r *trial.Record) error {
	req := &runapi.RunRequest{Task: &runapi.TaskRequest{Policy: rp.doc,
		Dir: t.Dir, PolicySource: rp.source, Agent: k.Agent, Model: b.modelFor(k.Agent), BaseMap: b.cfg.BaseMap, Semantics: b.cfg.Semantics, Caps: b.cfg.Caps,
		AgentAllowHosts: b.cfg.AgentAllowHosts}}
	if rp.source != runapi.SourceUnconstrained && !requesterAgent(k.Agent) {
		// The oracle's and the shortcut's requests are the bench's
		// (requester.go), not the run's.
		b.cfg.requestsOn(req.Task)
	}
	final, err := attempt(ctx, b.o.API, req)
	if err != nil {
		trial.FillScore(r, nil, rp.trial(), t.Spec)
		return err
	}
	if err := collect(ctx, b.o.API, final.ID, b.out, dir); err != nil {
		return fmt.Errorf("copy the files of run %s: %w", final.ID, diskError(err))
	}
	trial.FromTaskResult(r, final.TaskResult, rp.trial(), t.Spec)
	return nil
}

// policySourceFor is the policy source of the run k.
func (b *bencher) policySourceFor(k Key) policySource {
	for _, s := range b.cfg.Sources {
		if s.Name == k.Source {
			if b.cfg.Pipeline != nil && s.Generator != "" && k.Agent != runapi.AgentNone {
				return stagedGenSource{b: b, s: s}
			}
			return b.policySourceOf(s)
		}
	}
	panic("bench: a run of an unknown source " + k.Source)
}

// tracePolicy returns the trace source's policy for a task, recording it
// once per task (kept in the out dir for a resumed bench).
func (b *bencher) tracePolicy(ctx context.Context, t *tasks.Task, s Source) (runPolicy, error) {
	b.mu.Lock()
	once := b.traces[t.Name]
	if once == nil {
		once = &traceOnce{}
		b.traces[t.Name] = once
	}
	b.mu.Unlock()
	pol, err := once.get(func() (*policy.Policy, error) { return b.recordTrace(ctx, t) })
	if err != nil {
		return runPolicy{}, fmt.Errorf("record the trace policy of %s: %w", t.Name, err)
	}
	return s.policyFor(t, pol), nil
}

type traceOnce struct {
	mu  sync.Mutex
	pol *policy.Policy
	// refused is the recorder's refusal (runapi.ErrorRecording): the
	// task's other trace runs are errors with the same reason, without
	// recording again.
	refused error
}

// get returns the recorded policy, recording it when none is yet (a
// recording that could not be carried out is tried again by the next
// run; one the recorder refused is not).
func (o *traceOnce) get(record func() (*policy.Policy, error)) (*policy.Policy, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.pol != nil || o.refused != nil {
		return o.pol, o.refused
	}
	pol, err := record()
	if err != nil {
		if runapi.KindOf(err) == runapi.ErrorRecording {
			o.refused = err
		}
		return nil, err
	}
	o.pol = pol
	return pol, nil
}

// recordTrace loads policies/trace/<task>.json from the out dir, or
// records it and saves it there.
func (b *bencher) recordTrace(ctx context.Context, t *tasks.Task) (*policy.Policy, error) {
	name := path.Join("policies", runapi.SourceTrace, t.Name+".json")
	if data, err := b.out.ReadFile(name); err == nil {
		return policy.ParsePolicyFor(data, b.out.Join(name), t.Spec)
	}
	pol, err := b.o.TraceRecorder(ctx, t)
	if err != nil {
		return nil, err
	}
	data, err := json.MarshalIndent(pol, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := b.out.MkdirAll(path.Dir(name)); err != nil {
		return nil, diskError(err)
	}
	if err := writeJSONFile(b.out, name, json.RawMessage(data)); err != nil {
		return nil, diskError(err)
	}
	return pol, nil
}

// writeSummary writes the out dir's result.json.
func (b *bencher) writeSummary(finished bool) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if finished {
		now := time.Now().UTC()
		b.sum.FinishedAt = &now
	}
	if b.sum.Skipped == nil {
		b.sum.Skipped = []trial.SkippedTask{}
	}
	return writeJSONFile(b.out, JobResultFile, b.sum)
}

// loadTasks loads the tasks of the shard; broken tasks (and a second
// task of the same name) are skipped with the reason.
func loadTasks(dir string, shard Shard) ([]*tasks.Task, []trial.SkippedTask, error) {
	dirs, err := tasks.Discover(dir)
	if err != nil {
		return nil, nil, err
	}
	var ts []*tasks.Task
	skipped := []trial.SkippedTask{}
	names := map[string]string{}
	for i, d := range dirs {
		if !shard.Has(i) {
			continue
		}
		t, err := tasks.Load(d)
		if err != nil {
			skipped = append(skipped, trial.SkippedTask{Dir: d, Reason: err.Error()})
			continue
		}
		if t.Spec == nil {
			skipped = append(skipped, trial.SkippedTask{Dir: d, Reason: "no " + tasks.FilePermissionSpec})
			continue
		}
		if other, ok := names[t.Name]; ok {
			skipped = append(skipped, trial.SkippedTask{Dir: d, Reason: "a task of the same name is at " + other})
			continue
		}
		names[t.Name] = d
		ts = append(ts, t)
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i].Name < ts[j].Name })
	return ts, skipped, nil
}

// diskError marks a full disk as ErrDiskFull.
func diskError(err error) error { return storeError(err) }

type nopProgress struct{}

func (nopProgress) Start(int, int, []trial.SkippedTask) {}
func (nopProgress) Done(*trial.Record, Stats)           {}
func (nopProgress) Finish(error)                        {}
