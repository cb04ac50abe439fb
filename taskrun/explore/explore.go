package explore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	specs "github.com/opencontainers/runtime-spec/specs-go"

	"go.uber.org/zap"

	"github.com/authbench/authbench/audit"
	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/internal/capped"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/sandbox"
	"github.com/authbench/authbench/taskrun"
	"github.com/authbench/authbench/taskrun/internal/runbox"
	"github.com/authbench/authbench/tracer/trace"
)

// Paths of the exploration (permission generation) inside the container.
const (
	// OutDir holds the one file a generator may write.
	OutDir = "/.authbench-out"
	// OutFile is the policy output file: a file of the run
	// directory (GeneratorOutputFile) bind-mounted here, so the rootfs
	// itself is never written.
	OutFile = OutDir + "/policy.json"
)

// MaxGeneratorStdout bounds the generator's stored stdout; beyond it the
// answer is truncated (and so invalid).
const MaxGeneratorStdout = 64 << 10

// DefaultTimeout is a generator's time unless the caller sets one.
const DefaultTimeout = 10 * time.Minute

// maxFilesRead bounds Exploration.FilesRead.
const maxFilesRead = 5000

// InspectionTools are the programs a generator may execute besides
// itself, where the rootfs has them (resolved through PATH to real files).
// No shell is among them.
var InspectionTools = []string{"ls", "cat", "head", "tail", "find", "grep", "stat", "file", "wc", "which", "readlink", "tree"}

// Options describe one exploration: a generator run in a fresh
// copy-on-write rootfs of the task, under the generation policy.
type Options struct {
	// Options gives the task and the run's collaborators; Source, Policy,
	// Agent, Semantics, Capabilities and Model are not used.
	taskrun.Options
	// Command is the generator's shell command line (a `cmd:` generator).
	Command string
	// Input is the generator's standard input (the instruction and rules).
	Input string
	// Timeout is the generator's time (0: DefaultTimeout).
	Timeout time.Duration
	// inspect, when set (tests), sees the mounted rootfs before the
	// generator starts and after it ended.
	inspect func(phase, rootfs string)
}

// Exploration is how an exploration went.
type Exploration struct {
	// Identity is who the generator ran as (the task's agent user).
	Identity *runapi.Identity `json:"identity,omitempty"`
	// Stdout is what the generator printed, up to MaxGeneratorStdout;
	// StdoutDropped counts the bytes beyond it.
	Stdout        []byte `json:"-"`
	StdoutDropped int64  `json:"stdout_dropped_bytes,omitempty"`
	// Output is the content of OutFile (empty: not written).
	Output []byte `json:"-"`
	// OutputTooLarge is set when the output file was larger than
	// policy.MaxDocumentBytes (it is then not read; the generator cannot
	// make it much larger: its file size limit is one byte more).
	OutputTooLarge bool    `json:"output_too_large,omitempty"`
	ExitCode       int     `json:"exit_code"`
	TimedOut       bool    `json:"timed_out"`
	DurationS      float64 `json:"duration_s"`
	SetupMS        float64 `json:"setup_ms"`
	// StartError says why the generator could not start (its program was
	// refused, or sandbox-init failed inside the container).
	StartError string `json:"start_error,omitempty"`
	// Executable are the real paths the generation policy lets run.
	Executable []string `json:"executable"`
	// FilesRead are the files the generator opened for reading
	// successfully (real paths, sorted; the shared libraries and loader
	// files every program opens are left out), from the trace;
	// FilesReadDropped counts those beyond the bound.
	FilesRead        []string `json:"files_read"`
	FilesReadDropped int      `json:"files_read_dropped,omitempty"`
	// Execs counts the programs the generator ran (successful execs after
	// its own), from the trace: a cmd: generator's tool calls.
	Execs      int            `json:"execs"`
	Denials    []audit.Denial `json:"denials"`
	Traced     bool           `json:"traced"`
	Events     uint64         `json:"events"`
	LostEvents uint64         `json:"lost_events"`
}

// Explore runs a `cmd:` generator in a fresh copy-on-write rootfs of the
// task's image, as the task's agent user, under the generation policy
// (GenerationPolicy: read everything, write only OutFile, execute
// only the inspection tools and the generator), the default seccomp
// profile with metadata changes refused (GenerationFilter), traced. The
// error is for an exploration that could not be carried out (image,
// rootfs, identity, plan); a generator that failed is described by the
// Exploration.
func Run(ctx context.Context, o Options) (*Exploration, error) {
	if strings.TrimSpace(o.Command) == "" {
		return nil, errors.New("explore: no generator command")
	}
	r, err := newExplorer(o.Options)
	if err != nil {
		return nil, err
	}
	x := &Exploration{Denials: []audit.Denial{}, FilesRead: []string{}, Executable: []string{}}
	root, cleanup, err := r.prepareExploration(ctx, x)
	if err != nil {
		return x, err
	}
	defer cleanup()
	argv := []string{"/bin/sh", "-c", o.Command}
	if err := r.compileGenerationPlan(root, GeneratorPrograms(root, argv, r.ImagePath()), x); err != nil {
		return x, err
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if o.inspect != nil {
		o.inspect("before", r.Rootfs.Path)
		defer func() { o.inspect("after", r.Rootfs.Path) }()
	}
	return x, r.runGenerator(ctx, argv, o.Input, timeout, x)
}

// explorer is one exploration's environment and containers.
type explorer struct {
	*runbox.Box
}

// newExplorer readies the environment of one exploration in o.Dir, with
// a fresh id.
func newExplorer(o taskrun.Options) (*explorer, error) {
	r := &explorer{Box: &runbox.Box{Options: o}}
	if err := r.New(); err != nil {
		return nil, err
	}
	return r, nil
}

// prepareExploration builds the image, mounts a fresh rootfs and resolves
// the generator's identity (the task's agent user); cleanup unmounts.
func (r *explorer) prepareExploration(ctx context.Context, x *Exploration) (*policy.Root, func(), error) {
	var err error
	if err = sandbox.CheckStatic(r.Self); err != nil {
		return nil, nil, runapi.WithKind(runapi.ErrorConfine, err)
	}
	if r.Image, err = r.BuildImage(ctx); err != nil {
		return nil, nil, runapi.WithKind(runapi.ErrorBuild, err)
	}
	if r.Rootfs, err = env.NewRootfs(r.Image.Rootfs, filepath.Join(r.Dir, runbox.RootfsDir)); err != nil {
		return nil, nil, runapi.WithKind(runapi.ErrorRootfs, err)
	}
	cleanup := func() {
		if err := r.Rootfs.Close(); err != nil {
			r.Log.Error("close rootfs", zap.Error(err))
		}
	}
	if r.Ident, err = runbox.ResolveAgent(r.Task, r.Image, r.Rootfs.Path); err != nil {
		cleanup()
		return nil, nil, runapi.WithKind(runapi.ErrorIdentity, err)
	}
	ident := r.Ident
	x.Identity = &ident
	if r.OnIdentity != nil {
		r.OnIdentity(ident)
	}
	root, err := policy.NewRoot(r.Rootfs.Path)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	return root, cleanup, nil
}

// compileGenerationPlan compiles GenerationPolicy with the sandbox
// essentials only (no runtime baseline) against root, and writes it. The
// output file's mount point is made first (runc would make it), so that
// its write rule is a rule on that file: sandbox-init opens it inside
// the container, where it is the file bound from the run directory.
func (r *explorer) compileGenerationPlan(root *policy.Root, programs []string, x *Exploration) error {
	if err := os.MkdirAll(root.HostPath(OutDir), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(root.HostPath(OutFile), nil, 0o600); err != nil {
		return err
	}
	pol, exe := GenerationPolicy(root, programs, r.ImagePath())
	x.Executable = exe
	plan, err := policy.CompilePlanWith(pol, policy.NoBaseline(), root, policy.PlanOptions{Semantics: policy.SemanticsPrecise})
	if err != nil {
		return fmt.Errorf("compile the generation plan: %w", err)
	}
	r.Plan = plan
	enf := sandbox.KernelEnforcement()
	return runbox.WriteJSON(filepath.Join(r.Dir, runapi.FilePlan), map[string]any{"semantics": plan.Semantics, "plan": plan, "enforcement": enf, "policy": pol.Permissions})
}

// GenerationPolicy is the policy a generator runs under: read `/**`;
// write only OutFile; execute the real files of programs (the
// generator) and of the InspectionTools found in path (a ':' list) in
// root. exe are the executable real paths, sorted.
func GenerationPolicy(root *policy.Root, programs []string, path string) (pol *policy.Policy, exe []string) {
	seen := map[string]bool{}
	add := func(p string) {
		if p != "" && !seen[p] {
			seen[p] = true
			exe = append(exe, p)
		}
	}
	for _, p := range programs {
		add(p)
	}
	for _, tool := range InspectionTools {
		add(root.LookPath(tool, path))
	}
	sort.Strings(exe)
	pol = &policy.Policy{Source: "generation policy"}
	pol.Permissions[policy.Read] = []policy.Pattern{policy.MustPattern("/**")}
	pol.Permissions[policy.Write] = []policy.Pattern{policy.MustPattern(OutFile)}
	for _, p := range exe {
		if pat, err := policy.ParsePattern(p); err == nil && !pat.HasGlob() {
			pol.Permissions[policy.Execute] = append(pol.Permissions[policy.Execute], pat)
		}
	}
	return pol, exe
}

// GeneratorPrograms are the real paths of what counts as the generator
// of argv ("/bin/sh -c COMMAND"): the shell that reads its command line,
// and, when COMMAND's first word names an executable file of the rootfs
// (a path, or a name found in path), that file and the interpreter of its
// "#!" line (with the program `/usr/bin/env` names). Other programs the
// generator starts are refused unless they are inspection tools.
func GeneratorPrograms(root *policy.Root, argv []string, path string) []string {
	var out []string
	if len(argv) == 0 {
		return nil
	}
	first := argv[0]
	if sh := root.Executable(first); sh != "" {
		out = append(out, sh)
	}
	if len(argv) < 3 || argv[1] != "-c" {
		return out
	}
	words := strings.Fields(argv[2])
	if len(words) == 0 {
		return out
	}
	prog := root.LookPath(words[0], path)
	if prog == "" {
		return out
	}
	out = append(out, prog)
	return append(out, root.ScriptInterpreters(prog, path)...)
}

// runGenerator runs argv in the rootfs under the generation plan, with
// input on its stdin, its stdout bounded, OutFile bound from the
// run directory, traced.
func (r *explorer) runGenerator(ctx context.Context, argv []string, input string, timeout time.Duration, x *Exploration) error {
	outFile := filepath.Join(r.Dir, runapi.FileGeneratorOutput)
	if err := r.createOutputFile(outFile); err != nil {
		return err
	}
	spec, err := r.generatorSpec(argv)
	if err != nil {
		return err
	}
	stdout, stderr, err := r.generatorOutput()
	if err != nil {
		return err
	}
	cfg := env.TaskRunConfig(r.Task, r.Image)
	cfg.Binds = append(cfg.Binds, env.Bind{Source: outFile, Destination: OutFile})
	// The output file is the one file the generator can write: bound its
	// size (a write beyond fails with EFBIG, or SIGXFSZ kills the writer).
	fsize := uint64(policy.MaxDocumentBytes + 1)
	cfg.Rlimits = append(slices.Clone(env.DefaultRlimits), specs.POSIXRlimit{Type: "RLIMIT_FSIZE", Hard: fsize, Soft: fsize})
	tr := &exploreTrace{}
	track := func(ctx context.Context, pid int) error { return r.startExploreTrace(ctx, pid, tr) }
	if r.Tracer == nil {
		track = nil
	}
	g := r.RunGated(ctx, runbox.Gated{
		Name: "generator", Config: cfg, Launch: spec,
		Stdio:   env.Stdio{Stdin: strings.NewReader(input), Stdout: stdout, Stderr: stderr},
		Timeout: timeout, Track: track,
	})
	r.finishExploreTrace(tr, x)
	stdout.Close()
	stderr.Close()
	x.StdoutDropped = stdout.Dropped()
	x.ExitCode, x.TimedOut, x.DurationS = g.ExitCode, g.TimedOut, g.Duration.Seconds()
	x.SetupMS = float64(g.Setup) / float64(time.Millisecond)
	if x.Stdout, err = os.ReadFile(filepath.Join(r.Dir, runapi.FileGeneratorStdout)); err != nil {
		return err
	}
	if err := r.readOutputFile(outFile, x); err != nil {
		return err
	}
	if g.StartErr != nil && !g.StartTimedOut {
		var ie *sandbox.InitError
		if !errors.As(g.StartErr, &ie) {
			return fmt.Errorf("generator could not start: %w", g.StartErr)
		}
		// Refused or missing program: the generator failed, not the run.
		x.StartError, x.ExitCode = ie.Error(), ie.ShellStatus()
	}
	if g.WaitErr != nil {
		return fmt.Errorf("generator: %w", g.WaitErr)
	}
	r.Log.Info("generator ended", zap.String("task", r.Task.Name), zap.Int("exit", x.ExitCode), zap.Bool("timed_out", x.TimedOut))
	return nil
}

// createOutputFile makes the empty output file, writable by the
// generator's user only.
func (r *explorer) createOutputFile(name string) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if err := f.Chown(r.Ident.UID, r.Ident.GID); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// readOutputFile reads what the generator wrote to its output file.
func (r *explorer) readOutputFile(name string, x *Exploration) error {
	st, err := os.Stat(name)
	if err != nil {
		return fmt.Errorf("generator output file: %w", err)
	}
	if st.Size() > policy.MaxDocumentBytes {
		x.OutputTooLarge = true
		return nil
	}
	x.Output, err = os.ReadFile(name)
	return err
}

// generatorSpec is what sandbox-init does: the agent's spec (its uid and
// groups, no capabilities, the image's working directory) confined to the
// generation plan with GenerationFilter.
func (r *explorer) generatorSpec(argv []string) (sandbox.Launch, error) {
	filter, err := GenerationFilter()
	if err != nil {
		return sandbox.Launch{}, err
	}
	r.Seccomp = filter
	return r.AgentLaunch(argv)
}

// generatorOutput creates the generator's stdout (bounded by
// MaxGeneratorStdout) and stderr (Options.MaxOutputBytes) logs.
func (r *explorer) generatorOutput() (stdout, stderr *capped.Writer, err error) {
	open := func(file, name string, limit int64) (*capped.Writer, error) {
		return r.CappedLog(file, name, limit, os.O_TRUNC)
	}
	if stdout, err = open(runapi.FileGeneratorStdout, "generator stdout", MaxGeneratorStdout); err != nil {
		return nil, nil, err
	}
	if stderr, err = open(runapi.FileGeneratorStderr, "generator stderr", r.MaxOutputBytes); err != nil {
		stdout.Close()
		return nil, nil, err
	}
	return stdout, stderr, nil
}

// exploreTrace is the recording of a generator and the files it read.
type exploreTrace struct {
	rec     *audit.Recording
	read    map[string]bool
	dropped int
	skip    []policy.Pattern
	execs   int // successful execs, the generator's own first
	// started is set at the generator's exec: the trace may begin with
	// sandbox-init's own start-up (its exec is seen when tracking starts
	// right at it), which is not the generator's. gate: wait for it.
	started, gate bool
	// init is the container's init (the generator, once it exec'd; 0:
	// unknown); own are the other processes that run the authbench
	// binary (sandbox-init's openat2 agent): what they do is not the
	// generator's.
	init int
	own  map[int]bool
}

// startExploreTrace follows the generator's container from its exec on.
func (r *explorer) startExploreTrace(ctx context.Context, pid int, tr *exploreTrace) error {
	root, err := policy.NewRoot(r.Rootfs.Path)
	if err != nil {
		return err
	}
	tr.read, tr.gate, tr.init, tr.own = map[string]bool{}, true, pid, map[int]bool{}
	ess := policy.SandboxEssentials()
	tr.skip = ess.Get(policy.Read)
	tr.rec, err = r.TraceContainer(ctx, pid, runapi.FileEvents, r.Plan, root, tr.observe)
	return err
}

// observe notes a file opened for reading successfully.
func (tr *exploreTrace) observe(ev *trace.Event) {
	if tr.init != 0 && ev.TGID != tr.init && ev.Op == trace.OpExec && !ev.Failed() &&
		(ev.Path == runbox.BinaryInContainer || ev.Target() == runbox.BinaryInContainer) {
		tr.own[ev.TGID] = true
	}
	if tr.own[ev.TGID] {
		return
	}
	if ev.Op == trace.OpExec && !ev.Failed() && (tr.started || ev.Path != runbox.BinaryInContainer) {
		tr.started = true
		tr.execs++
	}
	if tr.gate && !tr.started {
		return
	}
	// O_PATH opens (sandbox-init's Landlock rules) read nothing.
	if ev.Op != trace.OpOpen || ev.Axis != trace.AxisRead || ev.Failed() || ev.PathOnly() {
		return
	}
	p := ev.Target()
	if p == "" || tr.read[p] || p == runbox.BinaryInContainer {
		return
	}
	for _, s := range tr.skip {
		if s.Match(p) {
			return
		}
	}
	if len(tr.read) >= maxFilesRead {
		tr.dropped++
		return
	}
	tr.read[p] = true
}

// finishExploreTrace closes the recording once the container has ended.
func (r *explorer) finishExploreTrace(tr *exploreTrace, x *Exploration) {
	if tr.rec == nil {
		return
	}
	sum, err := tr.rec.Close()
	if err != nil {
		r.Log.Error("generator trace incomplete", zap.Error(err))
	}
	x.Traced = true
	x.Events, x.LostEvents = sum.Events, sum.Lost+tr.rec.Dropped()
	x.Denials = append(x.Denials, tr.rec.Auditor.Denials()...)
	for p := range tr.read {
		x.FilesRead = append(x.FilesRead, p)
	}
	sort.Strings(x.FilesRead)
	x.FilesReadDropped = tr.dropped
	x.Execs = max(tr.execs-1, 0)
}
