package cli

import (
	"github.com/spf13/pflag"

	"github.com/authbench/authbench/agent"
	"github.com/authbench/authbench/agent/agentname"
	"github.com/authbench/authbench/agent/modelconfig"
	"github.com/authbench/authbench/cli/core"
	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/generate/genname"
)

// embeddedFlags are the settings of an embedded daemon, for commands
// that run tasks when no daemon listens.
type embeddedFlags struct {
	stateDir  string
	imagesDir string
	noTrace   bool
}

// register adds --state-dir and --images-dir (described by imagesUsage)
// and, unless noTraceUsage is "", --no-trace.
func (f *embeddedFlags) register(fl *pflag.FlagSet, imagesUsage, noTraceUsage string) {
	fl.StringVar(&f.stateDir, "state-dir", DefaultStateDir, "run records, when running embedded")
	fl.StringVar(&f.imagesDir, "images-dir", env.DefaultImagesDir, imagesUsage)
	if noTraceUsage != "" {
		fl.BoolVar(&f.noTrace, "no-trace", false, noTraceUsage)
	}
}

// modelFlags are the flags of a model (an openai:MODEL agent or
// generator): the model's own flags and the config file whose [model]
// table fills what they leave out.
type modelFlags struct {
	model      *agent.Flags
	configFile string
}

// register adds --config (for whom: "agent" or "generator") and the
// model's flags.
func (f *modelFlags) register(fl *pflag.FlagSet, whom string) {
	fl.StringVar(&f.configFile, "config", "", "config file of an openai:MODEL "+whom+"'s [model] (default "+env.DefaultConfigFile+" if it exists)")
	f.model = agent.AddFlags(fl)
}

// agentConfig parses agentName (a malformed name is bad input) and is
// the model configuration of an agent that calls a model (openai:MODEL,
// installed:NAME[:MODEL]) from the flags and the config file; nil for
// another agent.
func (f modelFlags) agentConfig(agentName string) (*modelconfig.Config, error) {
	n, err := agentname.Parse(agentName)
	if err != nil {
		return nil, core.UsageErrorf("--agent: %v", err)
	}
	if !n.TakesModel() {
		return nil, nil
	}
	return modelConfig("--agent "+agentName, n.Model, f.model, f.configFile)
}

// generatorConfig is the model configuration of a generator that calls
// a model (genname.Generator.UsesModel), from the flags and the config
// file.
func (f modelFlags) generatorConfig(g genname.Generator) (*modelconfig.Config, error) {
	return modelConfig("generator "+g.Name, g.Model, f.model, f.configFile)
}

// Usage of --images-dir and --no-trace for the commands that run tasks.
const (
	imagesDirUsage = "task images, when running embedded"
	noTraceUsage   = "run untraced when embedded (no eBPF)"
)
