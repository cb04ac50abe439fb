package cli

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/authbench/authbench/agent/toolbox"
)

// agentToolsCmd is the hidden `authbench agent-tools`: the process a
// model agent's tool calls run in, inside the task's confinement.
func (a *app) agentToolsCmd() *cobra.Command {
	var o toolbox.Options
	cmd := &cobra.Command{
		Use:    "agent-tools [--max-output-bytes N] [--timeout D] [--max-timeout D] [--shell PATH]",
		Short:  "Serve a model agent's tool calls on stdin/stdout (run by task runs inside the sandbox)",
		Hidden: true,
		Long: `Read tool requests (JSON lines) on stdin and answer each on stdout:
list_dir, read_file, write_file, grep, stat and which run in this process,
shell runs bash (sh when bash is absent) as its child, in its own process
group, with the working directory and exported environment the previous
shell call left. It makes itself non-dumpable first, so that the agent's
processes (its uid) cannot reach its stdin and stdout. Task runs start it as the confined agent process of an
openai:MODEL agent; it ends when stdin ends.`,
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			if err := toolbox.Seal(); err != nil {
				return err
			}
			return toolbox.Serve(os.Stdin, os.Stdout, o)
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.MaxOutput, "max-output-bytes", toolbox.DefaultMaxOutput, "bound of each result's output")
	f.DurationVar(&o.DefaultTimeout, "timeout", toolbox.DefaultTimeout, "a shell command's time when the call names none")
	f.DurationVar(&o.MaxTimeout, "max-timeout", toolbox.DefaultMaxTimeout, "the longest time a shell command may be given")
	f.StringVar(&o.Shell, "shell", "", "the shell (default: bash from PATH, else /bin/sh)")
	return cmd
}
