package runbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/env/imagemeta"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/sandbox"
)

// BinaryInContainer is where every container of a run has the authbench
// binary (sandbox-init, the toolbox, die-with-parent).
const BinaryInContainer = "/.authbench/authbench"

// RootfsDir is where in the run directory a run mounts its rootfs.
const RootfsDir = "rootfs"

// Box is one run's environment and the state its containers share. The
// caller sets Options and calls New; the run fills the rest as it goes.
type Box struct {
	Options
	// Log is Options.Log, or a logger that drops everything (never nil
	// after New).
	Log *zap.Logger

	// ID prefixes the run's container ids (New makes a fresh one).
	ID string
	// Image, Rootfs and Ident are the task image, the run's rootfs and
	// the agent's identity in it.
	Image  *imagemeta.TaskImage
	Rootfs *env.Rootfs
	Ident  runapi.Identity
	// Plan is what confines the agent (nil: unconstrained).
	Plan *policy.Plan
	// Seccomp, when set, replaces the container seccomp filter of the
	// agent's container (a generation runs under its own).
	Seccomp *sandbox.Filter
	// Caps are the capabilities the agent runs with (none for a
	// generator).
	Caps []string
	// NetNS, when set, is the network namespace the run's containers
	// share (compose services, the run's egress proxy).
	NetNS string
	// AgentEnv is added to the agent's environment (an installed
	// harness's HOME, state and proxy variables), overriding the image's.
	AgentEnv []string
	// AgentNet and VerifierNet are the network of the agent's and the
	// verifiers' containers when the run has its own namespace (NetNS).
	AgentNet, VerifierNet PhaseNet
	// AgentStart is when the agent's (first) container was started.
	AgentStart time.Time
}

// PhaseNet is the network of a phase's containers in a run with its own
// namespace: Host puts them on the host's network (a public phase, not
// mediated), else they join the namespace; Env is added to their
// processes' environment (the proxy's variables).
type PhaseNet struct {
	Host bool
	Env  []string
}

// Apply sets cfg's network for the phase: nothing without a namespace of
// the run (the task's allow_internet decides, as it always did).
func (n PhaseNet) Apply(b *Box, cfg *env.RunConfig) {
	if b.NetNS != "" {
		cfg.AllowInternet = n.Host
	}
}

// New readies b for a run: a logger, a fresh container id prefix and
// the run directory.
func (b *Box) New() error {
	b.Log = b.Options.Log
	if b.Log == nil {
		b.Log = zap.NewNop()
	}
	var id [6]byte
	if _, err := rand.Read(id[:]); err != nil {
		return err
	}
	b.ID = "authbench-" + hex.EncodeToString(id[:])
	if err := os.MkdirAll(b.Dir, 0o750); err != nil {
		return fmt.Errorf("run %s: %w", b.Task.Name, err)
	}
	return nil
}

// BuildImage makes sure the task image (and the local bases it needs)
// exist, logging the build to BuildLogFile.
func (b *Box) BuildImage(ctx context.Context) (*imagemeta.TaskImage, error) {
	log, err := b.CappedLog(runapi.FileBuildLog, "build log", b.LogLimit(), os.O_TRUNC)
	if err != nil {
		return nil, err
	}
	defer b.CloseLog(log)
	img, built, err := env.BuildTask(ctx, b.Images, b.Task, b.BuildOptions(log))
	if err != nil {
		return nil, err
	}
	b.Log.Info("task image", zap.String("task", b.Task.Name), zap.Bool("built", built), zap.String("rootfs", img.Rootfs))
	return img, nil
}

// BuildOptions are the image build options of the run's images.
func (b *Box) BuildOptions(log io.Writer) env.BuildOptions {
	return env.BuildOptions{Builder: b.Builder, BaseMap: b.BaseMap, Registries: b.Registries, Log: log}
}

// ImagePath is the PATH of the task's image (policy.DefaultPath when it
// sets none).
func (b *Box) ImagePath() string {
	for _, kv := range env.TaskRunConfig(b.Task, b.Image).Env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			return v
		}
	}
	return policy.DefaultPath
}

// WriteJSON writes v, indented, to path.
func WriteJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// DefaultAgentTimeout is the agent's time when task.toml sets none.
const DefaultAgentTimeout = 30 * time.Minute

// AgentTimeout is the agent's time: task.toml's [agent] timeout_sec,
// else DefaultAgentTimeout.
func (b *Box) AgentTimeout() time.Duration {
	return Seconds(b.Task.Config.Agent.TimeoutSec, DefaultAgentTimeout)
}

// Seconds is a task.toml timeout of s seconds, def when it sets none.
func Seconds(s float64, def time.Duration) time.Duration {
	if s <= 0 {
		return def
	}
	return time.Duration(s * float64(time.Second))
}
