package daemon

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/authbench/authbench/agent/modelconfig"
	"github.com/authbench/authbench/daemon/work"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/sandbox"
	"github.com/authbench/authbench/tracer/trace"
)

// Config configures a Manager.
type Config struct {
	// StateDir holds run records (see Store).
	StateDir string
	// Self is the authbench binary, re-executed as sandbox-init.
	Self string
	// Tracer traces the command runs that ask for it (a *tracer.Tracer);
	// nil when tracing is unavailable.
	Tracer Tracer
	// Metrics counts what the daemon does (nil: nothing is counted).
	Metrics Metrics
	// Work carries out task runs, generations and image builds (package
	// daemon/taskwork, with the task images, registries and tracer);
	// nil: the Manager runs commands only and refuses the other kinds.
	Work work.Kinds
	// DefaultTimeout applies to runs that set none.
	DefaultTimeout time.Duration
	// MaxActive bounds queued plus running runs; more are refused.
	MaxActive int
	// MaxConcurrent bounds running runs; the others wait queued.
	MaxConcurrent int
	// MaxActivePerUID bounds the queued plus running runs of one non-root
	// caller (root is bounded by MaxActive only).
	MaxActivePerUID int
	// MaxConnsPerUID bounds the open API connections of one non-root uid.
	MaxConnsPerUID int
	// MaxOutputBytes caps each of a run's stored stdout, stderr and event
	// log; the rest is dropped and counted in the record.
	MaxOutputBytes int64
	// TrustedTaskRoots are the directories under which callers that are
	// not root may ask for task runs (see checkTrustedTaskDir); none by
	// default.
	TrustedTaskRoots []string
	// MemberModels is what members may use in their model configs: the
	// endpoints (none by default) and the limits; root is not bound.
	MemberModels modelconfig.MemberPolicy
	// HidePaths are paths that trees started as root do not see (an
	// empty tmpfs over a directory, /dev/null over anything else, in
	// their own mount namespace), such as the daemon's socket.
	HidePaths []string
	// OneShot is for a Manager embedded for one command (`authbench exec`
	// and `trace` with no daemon listening) whose StateDir is removed when
	// the command ends: a run's record lives in memory only, where API
	// reads find it, running or ended (nothing would read a file of it:
	// no crash recovery looks at the directory). The run's directory
	// still holds its logs.
	OneShot bool
	// Log receives structured logs.
	Log *zap.Logger
}

// Tracer traces the tree of a command run (package tracer's Tracer).
type Tracer interface {
	// TrackExec tracks the tree of pid from its next exec (its
	// launcher's own start-up is left out).
	TrackExec(pid int) (trace.Session, error)
}

// Defaults of Config.
const (
	DefaultTimeout       = time.Hour
	DefaultMaxActive     = 256
	DefaultMaxConcurrent = 16
	// killGrace is how long a killed tree may take to be reaped before
	// the run is recorded anyway.
	killGrace = time.Second
)

// Manager owns the lifecycle of runs: it validates requests, runs them
// through the sandbox and tracer, enforces timeouts and cancellation,
// and records every state change in the Store.
type Manager struct {
	cfg     Config
	store   *Store
	metrics Metrics
	log     *zap.Logger
	slots   chan struct{}
	// trustedTasks are Config.TrustedTaskRoots, resolved.
	trustedTasks []string

	mu       sync.Mutex
	active   map[string]*activeRun
	stopping bool
	// unsaved holds ended runs whose record could not be saved (state
	// disk full); retrying is set while a goroutine retries them.
	unsaved  map[string]*runapi.Run
	retrying bool
	// ended holds the final records of a OneShot manager's runs, and
	// of a daemon's last recentEnded runs (endedOrder, oldest first):
	// the client attached to a run asks for its end as it happens.
	ended      map[string]*runapi.Run
	endedOrder []string
	wg         sync.WaitGroup
}

// activeRun is a run that has not reached a terminal state.
type activeRun struct {
	mu      sync.Mutex
	rec     *runapi.Run
	prep    *prepared
	attach  *Attachment    // nil: the tree's output goes to the run's logs
	signals chan os.Signal // forwarded to an unattached tree (Signal)
	ctx     context.Context
	cancel  context.CancelCauseFunc
	done    chan struct{}
	changed chan struct{} // closed and replaced whenever logs grow
	fault   *stateFault   // the run could not be stored: it fails
}

// Causes of a run's end, carried by its context.
var (
	errCancelled = errors.New("cancelled on request")
	errAborted   = errors.New("aborted: the daemon is stopping")
	errTimeout   = errors.New("timed out")
	errStale     = errors.New("aborted: the daemon stopped while the run was active")
)

// positiveOr is v, or d if v is not positive (a Config limit left unset).
func positiveOr[T int | int64 | time.Duration](v, d T) T {
	if v <= 0 {
		return d
	}
	return v
}

// NewManager opens the state directory. A daemon then calls RecoverStale
// once it is sure it owns the state (its socket is listening).
func NewManager(cfg Config) (*Manager, error) {
	cfg.DefaultTimeout = positiveOr(cfg.DefaultTimeout, DefaultTimeout)
	cfg.MaxActive = positiveOr(cfg.MaxActive, DefaultMaxActive)
	cfg.MaxConcurrent = positiveOr(cfg.MaxConcurrent, DefaultMaxConcurrent)
	cfg.MaxActivePerUID = positiveOr(cfg.MaxActivePerUID, DefaultMaxActivePerUID)
	cfg.MaxConnsPerUID = positiveOr(cfg.MaxConnsPerUID, DefaultMaxConnsPerUID)
	cfg.MaxOutputBytes = positiveOr(cfg.MaxOutputBytes, DefaultMaxOutputBytes)
	if cfg.Log == nil {
		cfg.Log = zap.NewNop()
	}
	if cfg.Metrics == nil {
		cfg.Metrics = noMetrics{}
	}
	trusted, err := resolveTrustedRoots(cfg.TrustedTaskRoots)
	if err != nil {
		return nil, err
	}
	store, err := OpenStore(cfg.StateDir)
	if err != nil {
		return nil, err
	}
	m := &Manager{trustedTasks: trusted,
		cfg: cfg, store: store, metrics: cfg.Metrics, log: cfg.Log,
		slots: make(chan struct{}, cfg.MaxConcurrent), active: map[string]*activeRun{},
		unsaved: map[string]*runapi.Run{}, ended: map[string]*runapi.Run{},
	}
	runs, err := store.List()
	if err != nil {
		m.log.Warn("some run records are unreadable", zap.Error(err))
	}
	for _, r := range runs {
		m.metrics.Transition("", r.State)
	}
	return m, nil
}

// RecoverStale records the runs that a previous daemon left queued or
// running as aborted (their trees died with it), deletes the task
// containers' runc state it left and unmounts their root filesystems.
func (m *Manager) RecoverStale() error {
	runs, err := m.store.List()
	var tasks []string
	for _, r := range runs {
		if r.State.Terminal() || m.lookup(r.ID) != nil {
			continue
		}
		if k, kerr := kindOf(&r.Request); kerr == nil && k.usesRootfs() {
			tasks = append(tasks, r.ID)
		}
		from := r.State
		m.finishStale(r)
		if serr := m.store.Save(r); serr != nil {
			err = errors.Join(err, serr)
			continue
		}
		m.metrics.Transition(from, runapi.StateAborted)
	}
	if cerr := m.DeleteStaleContainers(); cerr != nil {
		return errors.Join(err, cerr) // their rootfs may still be in use
	}
	for _, id := range tasks {
		cerr := errNoTaskWork
		if m.cfg.Work != nil {
			cerr = m.cfg.Work.CleanupRun(m.store.RunDir(id))
		}
		if cerr != nil {
			err = errors.Join(err, fmt.Errorf("run %s: %w", id, cerr))
		}
	}
	return err
}

// Submit validates req for caller peer, records the run and starts it.
func (m *Manager) Submit(req *runapi.RunRequest, peer Peer) (*runapi.Run, error) {
	return m.submit(req, peer, nil)
}

func (m *Manager) submit(req *runapi.RunRequest, peer Peer, attach *Attachment) (*runapi.Run, error) {
	prep, err := validate(req, peer, m.trustedTasks, m.cfg.Work)
	if err != nil {
		return nil, err
	}
	if err := prep.limitMemberModel(peer, m.cfg.MemberModels); err != nil {
		return nil, err
	}
	if prep.req.Exec != nil && prep.req.Exec.Trace && m.cfg.Tracer == nil {
		return nil, badField("exec.trace", "tracing is not available in this daemon")
	}
	id, err := newRunID()
	if err != nil {
		return nil, err
	}
	uid, gid := prep.state.identity()
	rec := &runapi.Run{
		ID: id, State: runapi.StateQueued, Request: prep.req,
		CallerUID: peer.UID, CallerGID: peer.GID, CallerPID: peer.PID,
		UID: uid, GID: gid, CreatedAt: time.Now().UTC(),
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	ar := &activeRun{rec: rec, prep: prep, attach: attach, signals: runSignals(), ctx: ctx, cancel: cancel, done: make(chan struct{}), changed: make(chan struct{})}

	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case m.stopping:
		cancel(nil)
		return nil, ErrShuttingDown
	case len(m.active) >= m.cfg.MaxActive:
		cancel(nil)
		return nil, ErrBusy
	}
	if err := m.checkQuota(peer.UID); err != nil {
		cancel(nil)
		m.metrics.QuotaRefused()
		return nil, err
	}
	if err := m.createRecord(rec); err != nil {
		cancel(nil)
		return nil, &stateFault{err: err}
	}
	m.active[id] = ar
	m.metrics.Transition("", runapi.StateQueued)
	m.wg.Add(1)
	go m.run(ar)
	m.log.Info("run queued", zap.String("run", id), zap.String("kind", kindName(&prep.req)), zap.Uint32("caller", peer.UID))
	return ar.snapshot(), nil
}

func newRunID() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("new run id: %w", err)
	}
	return time.Now().UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b[:]), nil
}

// run waits for a slot, executes the run and records its end.
func (m *Manager) run(ar *activeRun) {
	defer m.wg.Done()
	defer ar.cancel(nil)
	select {
	case m.slots <- struct{}{}:
		defer func() { <-m.slots }()
	case <-ar.ctx.Done():
		m.end(ar, endStateFor(context.Cause(ar.ctx)), context.Cause(ar.ctx), nil)
		return
	}
	timeout := ar.prep.kind.defaultTimeout(m.cfg.DefaultTimeout)
	if t := ar.prep.req.TimeoutSeconds; t > 0 {
		timeout = time.Duration(t * float64(time.Second))
	}
	ctx, stop := context.WithTimeoutCause(ar.ctx, timeout, errTimeout)
	defer stop()
	res := ar.prep.kind.execute(ctx, m, ar)
	state := runapi.StateSucceeded
	var failure error
	switch cause := context.Cause(ctx); {
	case ctx.Err() != nil && (res.killed || res.startErr != nil):
		// Ended on request, at its deadline or by the daemon, whatever
		// step it was at (a task run's setup ends with an error then).
		state, failure = endStateFor(cause), cause
	case res.startErr != nil:
		state, failure = runapi.StateFailed, res.startErr
	case res.exitCode != 0:
		state = runapi.StateFailed
	}
	if f := ar.faulted(); f != nil {
		state, failure = runapi.StateFailed, f
	}
	var code *int
	if res.startErr == nil {
		c := res.exitCode
		code = &c
	}
	m.end(ar, state, failure, code)
}

func endStateFor(cause error) runapi.State {
	var sf *stateFault
	switch {
	case errors.As(cause, &sf):
		return runapi.StateFailed
	case errors.Is(cause, errTimeout):
		return runapi.StateTimeout
	case errors.Is(cause, errAborted):
		return runapi.StateAborted
	}
	return runapi.StateCancelled
}

// setRunning records that the tree started.
func (m *Manager) setRunning(ar *activeRun, pid int) {
	ar.mu.Lock()
	now := time.Now().UTC()
	ar.rec.State, ar.rec.Pid, ar.rec.StartedAt = runapi.StateRunning, pid, &now
	err := m.saveProgress(ar.rec)
	ar.mu.Unlock()
	m.metrics.Transition(runapi.StateQueued, runapi.StateRunning)
	if err != nil {
		m.fault(ar, err)
	}
}

// amend changes the record under its lock without saving it: for what
// the run's next saved state (its start, its end) writes anyway, so that
// a run is written once per state, not once per field.
func (m *Manager) amend(ar *activeRun, fn func(r *runapi.Run)) {
	ar.mu.Lock()
	fn(ar.rec)
	ar.mu.Unlock()
}

// update changes the record under its lock and saves it.
func (m *Manager) update(ar *activeRun, fn func(r *runapi.Run)) {
	ar.mu.Lock()
	fn(ar.rec)
	err := m.saveProgress(ar.rec)
	ar.mu.Unlock()
	if err != nil {
		m.fault(ar, err)
	}
}

func (m *Manager) end(ar *activeRun, state runapi.State, failure error, code *int) {
	ar.mu.Lock()
	from := ar.rec.State
	m.finishRecord(ar.rec, state, failure, code)
	var err error
	if !m.cfg.OneShot {
		err = m.store.Save(ar.rec)
	}
	if err != nil && state != runapi.StateFailed {
		// The record in memory stays the answer (unsaved) until a retry
		// saves it; a run that already failed keeps its first reason.
		state = runapi.StateFailed
		m.finishRecord(ar.rec, state, &stateFault{err: err}, nil)
	}
	rec := *ar.rec
	ar.mu.Unlock()
	if err != nil {
		m.log.Error("record run end; will retry", zap.String("run", rec.ID), zap.Error(err))
		m.keepUnsaved(&rec)
	} else {
		m.mu.Lock()
		m.rememberEnd(&rec)
		m.mu.Unlock()
	}
	m.metrics.Transition(from, state)
	var wall time.Duration
	if rec.StartedAt != nil {
		wall = rec.EndedAt.Sub(*rec.StartedAt)
	}
	events, lost := rec.TraceCounts()
	m.metrics.RunEnded(state, rec.StartedAt != nil, wall, events, lost)
	m.mu.Lock()
	delete(m.active, rec.ID)
	m.mu.Unlock()
	close(ar.done)
	ar.notify()
	m.log.Info("run ended", zap.String("run", rec.ID), zap.String("state", string(state)), zap.String("error", rec.Error))
}

// finishRecord ends r in state; failure, when set, is why it did not
// succeed (its message and kind are recorded).
func (m *Manager) finishRecord(r *runapi.Run, state runapi.State, failure error, code *int) {
	now := time.Now().UTC()
	r.State, r.EndedAt, r.Pid = state, &now, 0
	if failure != nil {
		r.Error, r.ErrorKind = failure.Error(), errorKind(failure)
	}
	if code != nil {
		r.ExitCode = code
	}
}

// finishStale records a run that a previous daemon left active as
// aborted; a traced run's record gets the events that reached its log
// and is marked trace_incomplete.
func (m *Manager) finishStale(r *runapi.Run) {
	m.finishRecord(r, runapi.StateAborted, errStale, nil)
	if k, err := kindOf(&r.Request); err != nil || !k.traced(&r.Request) || r.StartedAt == nil {
		return // nothing was traced
	}
	r.TraceIncomplete = true
	n, err := countStoredEvents(m.store.RunFile(r.ID, eventsFile))
	if err != nil {
		m.log.Warn("count the events of an interrupted run", zap.String("run", r.ID), zap.Error(err))
	}
	r.Events = n
}

// createRecord makes the directory of a new run and, unless the manager
// is OneShot, writes its first record.
func (m *Manager) createRecord(r *runapi.Run) error {
	if m.cfg.OneShot {
		return m.store.CreateDir(r.ID)
	}
	return m.store.Create(r)
}

// saveProgress saves the record of a run that has not ended, unless the
// manager is OneShot (its record is written when the run ends).
func (m *Manager) saveProgress(r *runapi.Run) error {
	if m.cfg.OneShot {
		return nil
	}
	return m.store.Save(r)
}

// recentEnded is how many final records a daemon keeps in memory
// besides saving them: its Get of a run that just ended (the attached
// client's) is then not a load of the record from disk.
const recentEnded = 64

// rememberEnd keeps the saved final record r in memory: every one of a
// OneShot manager (it writes no other), the last recentEnded of a
// daemon. m.mu is held.
func (m *Manager) rememberEnd(r *runapi.Run) {
	m.ended[r.ID] = r
	if m.cfg.OneShot {
		return
	}
	m.endedOrder = append(m.endedOrder, r.ID)
	if len(m.endedOrder) > recentEnded {
		delete(m.ended, m.endedOrder[0])
		m.endedOrder = m.endedOrder[1:]
	}
}

// endedRun returns a copy of the final record of run id kept in memory
// (rememberEnd), if any.
func (m *Manager) endedRun(id string) *runapi.Run { return m.recordCopy(m.ended, id) }

// recordCopy returns a copy of records[id] (nil if none), read under the
// manager's lock.
func (m *Manager) recordCopy(records map[string]*runapi.Run, id string) *runapi.Run {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := records[id]
	if !ok {
		return nil
	}
	c := *r
	return &c
}

// snapshot copies the record under its lock.
func (ar *activeRun) snapshot() *runapi.Run {
	ar.mu.Lock()
	defer ar.mu.Unlock()
	r := *ar.rec
	return &r
}

// notify wakes everyone following the run's logs.
func (ar *activeRun) notify() {
	ar.mu.Lock()
	close(ar.changed)
	ar.changed = make(chan struct{})
	ar.mu.Unlock()
}

func (ar *activeRun) changes() <-chan struct{} {
	ar.mu.Lock()
	defer ar.mu.Unlock()
	return ar.changed
}

// Get returns the current record of run id.
func (m *Manager) Get(id string) (*runapi.Run, error) {
	if ar := m.lookup(id); ar != nil {
		return ar.snapshot(), nil
	}
	if r := m.unsavedRun(id); r != nil {
		return r, nil
	}
	if r := m.endedRun(id); r != nil {
		return r, nil
	}
	if !validRunID(id) {
		return nil, ErrNotFound
	}
	r, err := m.store.Load(id)
	if errors.Is(err, os.ErrNotExist) {
		return nil, ErrNotFound
	}
	return r, err
}

// List returns every recorded run, oldest first.
func (m *Manager) List() ([]*runapi.Run, error) {
	if m.cfg.OneShot {
		return m.listInMemory(), nil
	}
	runs, err := m.store.List()
	for i, r := range runs {
		if ar := m.lookup(r.ID); ar != nil {
			runs[i] = ar.snapshot()
		} else if u := m.unsavedRun(r.ID); u != nil {
			runs[i] = u
		}
	}
	return runs, err
}

// listInMemory is List for a OneShot manager, whose records are in
// memory until their run ends.
func (m *Manager) listInMemory() []*runapi.Run {
	m.mu.Lock()
	active := make([]*activeRun, 0, len(m.active))
	for _, ar := range m.active {
		active = append(active, ar)
	}
	runs := make([]*runapi.Run, 0, len(m.active)+len(m.ended))
	for _, r := range m.ended {
		c := *r
		runs = append(runs, &c)
	}
	m.mu.Unlock()
	for _, ar := range active {
		runs = append(runs, ar.snapshot())
	}
	sortRuns(runs)
	return runs
}

func (m *Manager) lookup(id string) *activeRun {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.active[id]
}

// Cancel kills the tree of run id; it returns when the run has ended
// (within about a second).
func (m *Manager) Cancel(id string) (*runapi.Run, error) {
	ar := m.lookup(id)
	if ar == nil {
		return m.Get(id)
	}
	ar.cancel(errCancelled)
	select {
	case <-ar.done:
	case <-time.After(killGrace + 2*time.Second):
		m.log.Warn("cancelled run is slow to end", zap.String("run", id))
	}
	return m.Get(id)
}

// Wait blocks until run id has ended or ctx is done.
func (m *Manager) Wait(ctx context.Context, id string) (*runapi.Run, error) {
	if ar := m.lookup(id); ar != nil {
		select {
		case <-ar.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return m.Get(id)
}

// Shutdown aborts every active run, waits for them to be recorded and
// refuses new ones.
func (m *Manager) Shutdown(ctx context.Context) error {
	m.mu.Lock()
	m.stopping = true
	for _, ar := range m.active {
		ar.cancel(errAborted)
	}
	m.mu.Unlock()
	done := make(chan struct{})
	go func() { m.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		return fmt.Errorf("shutdown: runs still ending: %w", ctx.Err())
	}
	if n := m.saveUnsaved(); n > 0 {
		return fmt.Errorf("shutdown: %d run records could not be saved", n)
	}
	return nil
}

// validRunID accepts only ids this daemon could have made, so an id can
// never name a path outside the state directory.
func validRunID(id string) bool {
	if len(id) == 0 || len(id) > 64 {
		return false
	}
	for _, c := range id {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c == 'T' || c == '-') {
			return false
		}
	}
	return true
}

// errorKind is the kind of a run's failure: sandbox-init's refusal to
// confine (confine), the run's deadline (agent_timeout), a cancel
// (cancelled), the daemon stopping or failing to keep the record
// (daemon), else the kind the run's work gave it (a task run's: build,
// rootfs, identity, ...).
func errorKind(err error) runapi.ErrorKind {
	var ie *sandbox.InitError
	var sf *stateFault
	switch {
	case errors.As(err, &ie):
		return runapi.ErrorConfine
	case errors.Is(err, errTimeout):
		return runapi.ErrorAgentTimeout
	case errors.Is(err, errCancelled):
		return runapi.ErrorCancelled
	case errors.Is(err, errAborted), errors.Is(err, errStale), errors.As(err, &sf):
		return runapi.ErrorDaemon
	}
	return runapi.KindOf(err)
}
