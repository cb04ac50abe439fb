package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/authbench/authbench/bench"
	"github.com/authbench/authbench/cli/core"
	"github.com/authbench/authbench/internal/termtext"
)

// benchMergeCmd is `authbench bench merge OUT SHARD...`.
func (a *app) benchMergeCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "merge OUT SHARD...",
		Short: "Merge the out dirs of a sharded bench into one results database and job layout",
		Long: `Merge the out dirs of the shards of one bench (each run with --shard I/N, the
same N and the same settings: tasks, sources, agent, trials, semantics, caps,
allowed hosts, base map) into OUT: one results.db and Harbor's job layout
(OUT/config.json, OUT/result.json, OUT/<trial>/...), as one unsharded bench
writes them; "authbench report OUT" reads it.

Shards of other settings or another N are refused, and so is a run that two
shards (or a shard and OUT) hold with different finished records. Merging
again is idempotent: runs already in OUT are kept, a run stored there with an
error is replaced by a shard's finished run. A shard not given (an array task
that failed) is named; resume it ("authbench bench ... --shard I/N" into its
own out dir) and merge again. The same bench without --shard, resumed in OUT,
runs only what no shard stored.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 2 {
				return core.UsageErrorf("bench merge: want OUT and at least one SHARD dir")
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error { return a.runBenchMerge(args[0], args[1:]) },
	}
}

func (a *app) runBenchMerge(out string, shards []string) error {
	sum, err := bench.Merge(out, shards, core.Version)
	var mismatch *bench.ShardMismatchError
	var settings *bench.SettingsMismatchError
	if errors.As(err, &mismatch) || errors.As(err, &settings) {
		return core.Usage(fmt.Errorf("bench merge: %w", err))
	}
	if err != nil {
		return fmt.Errorf("bench merge: %w", err)
	}
	if a.JSONOut {
		return a.PrintJSON(sum)
	}
	s := sum.Summary.Stats
	fmt.Fprintf(a.Stderr, "bench merge %s: %d shards of %d, %d runs added, %d replaced, %d kept; %d of %d runs stored, %d failed, %d errors\n",
		termtext.Escape(out), len(shards), sum.Count, sum.Added, sum.Replaced, sum.Kept, s.NTrials, sum.Summary.NTotal, s.NFailed, s.NErrors)
	if len(sum.Missing) > 0 {
		fmt.Fprintf(a.Stderr, "bench merge: shards %v of %d not merged yet: run them and merge again\n", sum.Missing, sum.Count)
	}
	for _, dir := range sum.Unfinished {
		fmt.Fprintf(a.Stderr, "bench merge: shard %s did not finish: resume it and merge again\n", termtext.Escape(dir))
	}
	for _, p := range sum.Skipped {
		fmt.Fprintf(a.Stderr, "bench merge: not copied (not a regular file or directory): %s\n", termtext.Escape(p))
	}
	return nil
}
