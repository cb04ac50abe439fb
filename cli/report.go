package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/authbench/authbench/bench"
	"github.com/authbench/authbench/cli/core"
	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/internal/safefile"
	"github.com/authbench/authbench/report"
)

// reportFlags are the flags of `authbench report`.
type reportFlags struct {
	format         string
	out            string
	trustVerifiers bool
	configFile     string
}

func (a *app) reportCmd() *cobra.Command {
	var f reportFlags
	cmd := &cobra.Command{
		Use:   "report DIR... [--format md|html|json|text] [--out FILE]",
		Short: "Aggregate bench out dirs into Table 1, per-axis charts and the failure distribution",
		Long: `Read the results of one or more bench out dirs (shards, machines: their runs
are merged, a run stored twice counts once, the latest wins) and write the
report: Table 1 per policy source and agent, the per-axis precision/recall
figures, the failure-class distribution, a per-run drill-down, and the lists
of runs whose agent failed while the verifier passed, spec gaps and skipped
tasks.

Formats: md (Markdown, the default), html (one self-contained page with inline
SVG charts), json, text (Table 1 for a terminal). --out FILE writes the report
there instead of stdout. Tokens are priced by the [prices] table of the config
file (--config, default /etc/authbench/config.toml when it exists):
[prices."MODEL"] input = USD per million input tokens, output = USD per
million output tokens. docs/report.md says what every number means.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return core.UsageErrorf("report: name at least one bench out dir")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, dirs []string) error {
			if !cmd.Flags().Changed("trust-verifiers") {
				f.trustVerifiers = benchesTrustVerifiers(dirs)
			}
			return a.runReport(f, dirs)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.format, "format", "md", "md, html, json or text")
	fl.StringVar(&f.out, "out", "", "write the report to `FILE` instead of stdout")
	fl.BoolVar(&f.trustVerifiers, "trust-verifiers", false,
		"keep runs whose verifier consumed agent-written files or was not traced completely in success rates (default: as every bench was run)")
	fl.StringVar(&f.configFile, "config", "", "price the tokens by the [prices] table of `FILE` (default "+env.DefaultConfigFile+" when it exists)")
	return cmd
}

// reportPrices reads the price table of the report's config file; the
// default file is optional, a named one is not.
func reportPrices(name string) (report.Prices, error) {
	file, required := name, true
	if file == "" {
		file, required = env.DefaultConfigFile, false
	}
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) && !required {
		return nil, nil
	}
	if err != nil {
		return nil, core.UsageErrorf("--config: %v", err)
	}
	p, err := report.ParsePrices(data, file)
	if err != nil {
		return nil, core.Usage(err)
	}
	return p, nil
}

func (a *app) runReport(f reportFlags, dirs []string) error {
	var render func(r *report.Report, b *bytes.Buffer) error
	switch f.format {
	case "md", "markdown":
		render = func(r *report.Report, b *bytes.Buffer) error { return r.Markdown(b) }
	case "html":
		render = func(r *report.Report, b *bytes.Buffer) error { return r.HTML(b) }
	case "json":
		render = func(r *report.Report, b *bytes.Buffer) error { return r.JSON(b) }
	case "text":
		render = func(r *report.Report, b *bytes.Buffer) error { return r.Table1Text(b) }
	default:
		return core.UsageErrorf("--format %q: want md, html, json or text", f.format)
	}
	prices, err := reportPrices(f.configFile)
	if err != nil {
		return err
	}
	records, err := bench.LoadRecords(dirs...)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	skipped, err := bench.LoadSkipped(dirs...)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	rep := report.Build(records, report.Options{TrustVerifiers: f.trustVerifiers, Skipped: skipped, Prices: prices})
	var buf bytes.Buffer
	if err := render(rep, &buf); err != nil {
		return fmt.Errorf("report: render %s: %w", f.format, err)
	}
	if f.out == "" {
		_, err = a.Stdout.Write(buf.Bytes())
		return err
	}
	// The report's directory must be one no other user can swap (a
	// sticky /tmp is fine); the file itself is never reached by a link.
	dir, name, err := safefile.OpenParent(f.out, os.Geteuid())
	if err != nil {
		return fmt.Errorf("report: --out: %w", err)
	}
	defer dir.Close()
	if err := dir.WriteFile(name, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("report: --out: %w", err)
	}
	return nil
}

// benchesTrustVerifiers is true when every out dir's bench was run with
// --trust-verifiers.
func benchesTrustVerifiers(dirs []string) bool {
	for _, d := range dirs {
		s, err := bench.LoadSettings(d)
		if err != nil || !s.TrustVerifiers {
			return false
		}
	}
	return true
}
