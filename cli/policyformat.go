package cli

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/authbench/authbench/cli/core"
	"github.com/authbench/authbench/internal/safefile"
	"github.com/authbench/authbench/internal/termtext"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/policy/formats"
)

func formatNames(list []formats.Format) string {
	names := make([]string, len(list))
	for i, f := range list {
		names[i] = string(f)
	}
	return strings.Join(names, "|")
}

// policyExportCmd is `authbench policy export`.
func (a *app) policyExportCmd() *cobra.Command {
	var format, rootDir, baseline string
	cmd := &cobra.Command{
		Use:   "export --format " + formatNames(formats.ExportFormats) + " [--root DIR] [--baseline default|none|SPEC] POLICY",
		Short: "Write a policy in another sandbox's or agent's format, with what that format cannot express",
		Long: `Convert the policy file POLICY into the format of another tool and print it on
stdout; every difference between the policy and what the other tool will do is
a warning on stderr (wider, narrower or the same access in another way), never
silent (--json: {"format", "text", "args", "warnings"}). docs/formats.md has a
page per format.

bwrap and landrun print an argument list to which the command is appended
("$(authbench policy export --format bwrap p.json) -- CMD" does not work: paste
the text, or take "args" from --json); systemd prints a [Service] drop-in;
claude-code prints a settings.json "permissions" object; codex prints
config.toml settings; srt prints sandbox-runtime settings. bwrap, landrun and
systemd take paths, not globs: the policy is compiled against --root (default
/) with the runtime --baseline (default: the one authbench exec adds) as
authbench's own Landlock plan is, and its globs are the paths they match now.`,
		Args: exactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			f, err := formats.ParseFormat(format, formats.ExportFormats)
			if err != nil {
				return core.UsageErrorf("--format: %v", err)
			}
			pol, err := policy.LoadPolicyFor(args[0], formats.NetworkSpec)
			if err != nil {
				return core.Usage(err)
			}
			base, err := policy.LoadBaseline(baseline)
			if err != nil {
				return core.Usage(err)
			}
			root, err := policy.NewRoot(rootDir)
			if err != nil {
				return core.UsageErrorf("--root: %v", err)
			}
			out, err := formats.Export(pol, f, formats.ExportOptions{Root: root, Baseline: base})
			if err != nil {
				return err
			}
			if a.JSONOut {
				return a.PrintJSON(out)
			}
			a.printFormatWarnings(out.Warnings)
			_, err = fmt.Fprint(a.Stdout, out.Text)
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&format, "format", "", "the target `FORMAT`: "+formatNames(formats.ExportFormats)+" (required)")
	fl.StringVar(&rootDir, "root", "/", "the root `DIR` bwrap, landrun and systemd paths are compiled against")
	fl.StringVar(&baseline, "baseline", policy.BaselineDefault, "runtime baseline added for bwrap, landrun and systemd: default, none, or a permission spec `FILE`")
	return cmd
}

// policyImportCmd is `authbench policy import`.
func (a *app) policyImportCmd() *cobra.Command {
	var format, home, dir, out string
	var noNetwork bool
	cmd := &cobra.Command{
		Use:   "import --format " + formatNames(formats.ImportFormats) + " [--home DIR] [--dir DIR] [--out FILE] FILE",
		Short: "Read another tool's permission settings as a policy, with what the policy cannot express",
		Long: `Convert a Claude Code settings.json, a Codex config.toml, srt settings or a
systemd unit (or drop-in) into an authbench policy, printed on stdout or
written to --out; what the policy cannot express (deny rules, paths relative to
an unknown directory, commands named without a path) is a warning on stderr.
The policy can then be scored (authbench score) and enforced (authbench exec)
like any other. --home is the directory "~" stands for, --dir the project or
workspace directory relative rules are taken from. Network entries are written
as the "network" key, which scoring and task runs of tasks with a network axis
use; --no-network leaves them out, for the published three-key format that
authbench exec and policy check take.`,
		Args: exactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			f, err := formats.ParseFormat(format, formats.ImportFormats)
			if err != nil {
				return core.UsageErrorf("--format: %v", err)
			}
			data, err := os.ReadFile(args[0])
			if err != nil {
				return core.Usage(fmt.Errorf("import: %w", err))
			}
			pol, warns, err := formats.Import(data, f, args[0], formats.ImportOptions{Home: home, Dir: dir, NoNetwork: noNetwork})
			if err != nil {
				return core.Usage(err)
			}
			a.printFormatWarnings(warns)
			doc, err := pol.MarshalJSON()
			if err != nil {
				return err
			}
			if out != "" {
				dir, name, err := safefile.OpenParent(out, os.Geteuid())
				if err != nil {
					return fmt.Errorf("--out: %w", err)
				}
				defer dir.Close()
				return dir.WriteFile(name, append(doc, '\n'), 0o644)
			}
			_, err = fmt.Fprintln(a.Stdout, string(doc))
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&format, "format", "", "the source `FORMAT`: "+formatNames(formats.ImportFormats)+" (required)")
	fl.StringVar(&home, "home", "", "the home `DIR` that \"~\" stands for")
	fl.StringVar(&dir, "dir", "", "the project or workspace `DIR` relative rules are taken from")
	fl.StringVar(&out, "out", "", "write the policy to `FILE` instead of stdout")
	fl.BoolVar(&noNetwork, "no-network", false, "leave the network entries out (the published three-key format, as authbench exec and policy check take it)")
	return cmd
}

func (a *app) printFormatWarnings(ws []formats.Warning) {
	for _, w := range ws {
		fmt.Fprintf(a.Stderr, "authbench: warning: %s\n", termtext.Escape(w.String()))
	}
}
