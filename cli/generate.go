package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/authbench/authbench/agent/modelconfig"
	"github.com/authbench/authbench/cli/core"
	"github.com/authbench/authbench/generate/genname"

	"github.com/spf13/cobra"

	"github.com/authbench/authbench/bench"
	"github.com/authbench/authbench/internal/safefile"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
)

// generateFlags are the flags of `authbench generate`.
type generateFlags struct {
	generator string
	out       string
	trials    int
	timeout   time.Duration
	baseMap   []string
	embedded  embeddedFlags
	models    modelFlags
}

func (a *app) generateCmd() *cobra.Command {
	var f generateFlags
	cmd := &cobra.Command{
		Use:   `generate TASK --generator cmd:"..."|openai:MODEL|st:MODEL|heuristic|spec|allow-all [--out FILE] [--trials N] [--json]`,
		Short: "Have a generator write a task's permission policy, exploring a read-only copy of its environment",
		Long: `The generator reads the task's instruction and the rules of the phase (explore
without changing anything; answer with a JSON object {read, write, execute} of
absolute path patterns) and answers with a policy, which is validated with the
scorer's parser. An invalid answer is kept, marked invalid with the reason.

Generators:
  cmd:"COMMAND"  any program, run as /bin/sh -c COMMAND inside a fresh
                 copy-on-write rootfs of the task's image, as the task's agent
                 user, with the instruction and rules on stdin. It may read
                 everything, write only ` + "/.authbench-out/policy.json" + `, and
                 execute only itself (the shell reading COMMAND, the program
                 COMMAND's first word names and its #! interpreter) and the
                 inspection tools ls cat head tail find grep stat file wc which
                 readlink tree (where present): Landlock and seccomp refuse the
                 rest (writes, deletes, renames with EACCES; chmod, chown, utimes
                 and xattr changes with EPERM). The answer is the output file
                 when written, else stdout (at most 64 KiB; more is truncated
                 and invalid). It is traced: the record lists the files it read.
  openai:MODEL   a model of an OpenAI-compatible endpoint, exploring with the
                 tools list_dir, read_file, grep, stat and which, which run in
                 a tool process (authbench itself) confined and traced like a
                 cmd: generator; its final answer is the policy (one re-ask
                 with the parser's error when it is malformed; no answer
                 within --max-turns is invalid). Endpoint and options: the
                 model flags, else the config file's [model] table, else
                 OPENAI_BASE_URL and OPENAI_API_KEY (the key never on the
                 command line, never stored). The run keeps trajectory.json.
  st:MODEL       the sufficiency-tightness decomposition with that model: a
                 sufficiency stage explores as openai:MODEL does and answers a
                 policy granting all the task needs; a tightness stage (one
                 model call, no tools) is given the task and that policy and
                 answers the final one, removing what is not needed. The
                 record keeps both answers (stages).
  heuristic      static analysis of the image (no model): paths named in the
                 instruction and the files it names, programs scripts and
                 Makefiles run, the working directory.
  spec           the spec's required_permissions; allow-all: /** on each axis.

A generator that times out (--timeout, default 10m), exits non-zero, is
killed, prints garbage or too much gives an invalid policy with the reason.
The generation goes through the daemon when one listens, else runs embedded
(root). --out FILE writes a valid answer as the policy it parsed to
(normalised JSON, as "policy check", "score" and "exec --policy" read it,
whatever wrapping such as a fenced block the answer had), an invalid one as
given (with --trials N > 1, trial i > 1 goes to FILE with ".i" before its
extension); the raw answer stays in the generation record (policy_raw); --json prints the
generation records (generation.json). Exit status 0 when every generated
policy is valid, 1 when one is invalid.`,
		Args: exactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error { return a.runGenerate(f, args[0]) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.generator, "generator", "", `cmd:"COMMAND", openai:MODEL, st:MODEL, heuristic, spec or allow-all (required)`)
	fl.StringVar(&f.out, "out", "", "write the generated policy (normalised JSON) to `FILE`")
	fl.IntVar(&f.trials, "trials", 1, "generate `N` times")
	fl.DurationVar(&f.timeout, "timeout", 0, "the generator's time (default 10m)")
	addImageMapFlag(fl, &f.baseMap, imageMapUsage)
	f.embedded.register(fl, imagesDirUsage, noTraceUsage)
	f.models.register(fl, "generator")
	return cmd
}

// request checks the flags and builds the daemon request.
func (f generateFlags) request(dir string) (*runapi.RunRequest, error) {
	if f.generator == "" {
		return nil, core.UsageErrorf(`generate: --generator is required (cmd:"COMMAND", openai:MODEL, st:MODEL, heuristic, spec or allow-all)`)
	}
	if _, err := genname.Parse(f.generator); err != nil {
		return nil, core.UsageErrorf("--generator: %v", err)
	}
	if f.trials < 1 {
		return nil, core.UsageErrorf("--trials must be at least 1")
	}
	if f.timeout < 0 {
		return nil, core.UsageErrorf("--timeout must not be negative")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, core.UsageErrorf("generate: %v", err)
	}
	m, err := imageMap(f.baseMap)
	if err != nil {
		return nil, err
	}
	g, _ := genname.Parse(f.generator)
	var model *modelconfig.Config
	if g.UsesModel() {
		if model, err = f.models.generatorConfig(g); err != nil {
			return nil, err
		}
	}
	return &runapi.RunRequest{Generate: &runapi.GenerateRequest{Dir: abs, Generator: f.generator, BaseMap: m,
		TimeoutSeconds: f.timeout.Seconds(), Model: model}}, nil
}

func (a *app) runGenerate(f generateFlags, dir string) error {
	req, err := f.request(dir)
	if err != nil {
		return err
	}
	api, done, err := a.taskAPI(f.embedded)
	if err != nil {
		return err
	}
	defer done()
	ctx, stop := interruptContext()
	defer stop()
	var recs []*runapi.GenerationRecord
	invalid := 0
	for trial := 1; trial <= f.trials; trial++ {
		final, err := runapi.RunGenerate(ctx, api, req)
		if err != nil {
			return runFailed(ctx, err)
		}
		rec := final.GenerateResult
		if rec == nil {
			return fmt.Errorf("generation %s %s: %s", final.ID, final.State, final.Error)
		}
		if f.out != "" {
			if err := core.CheckOutFile(trialFile(f.out, trial)); err != nil {
				return fmt.Errorf("generate: --out: %w", err)
			}
			if err := safefile.WriteFile(trialFile(f.out, trial), rec.OutFile(), 0o644); err != nil {
				return fmt.Errorf("generate: --out: %w", err)
			}
		}
		if !a.JSONOut {
			printGeneration(a.Stderr, final.ID, trial, rec)
		}
		if rec.Error != "" && rec.PolicyRaw == "" {
			return fmt.Errorf("generation %s: %s", final.ID, rec.Error)
		}
		if !rec.Valid {
			invalid++
		}
		recs = append(recs, rec)
	}
	if a.JSONOut {
		if err := a.PrintJSON(recs); err != nil {
			return err
		}
	}
	if invalid > 0 {
		return &core.ExitError{Code: 1, Err: fmt.Errorf("generate: %d of %d generated policies are invalid", invalid, f.trials)}
	}
	return nil
}

// trialFile is where --out FILE puts trial n: FILE, then FILE with ".n"
// before its extension.
func trialFile(out string, n int) string {
	if n == 1 {
		return out
	}
	ext := filepath.Ext(out)
	return strings.TrimSuffix(out, ext) + "." + strconv.Itoa(n) + ext
}

// stageState is how a generator's stage ended, for printGeneration.
func stageState(st runapi.GenerationStage) string {
	state := "valid"
	if !st.Valid {
		state = "INVALID: " + st.Reason
	}
	s := fmt.Sprintf("%s, %d turns, stop %s", state, st.Turns, st.StopReason)
	if st.Tokens != nil {
		s += fmt.Sprintf(", tokens %d in, %d out", st.Tokens.Prompt, st.Tokens.Completion)
	}
	return s
}

func printGeneration(w io.Writer, id string, trial int, r *runapi.GenerationRecord) {
	state := "valid"
	if !r.Valid {
		state = "INVALID: " + r.Reason
	}
	fmt.Fprintf(w, "task %s, generator %s, trial %d: %s\n", r.Task, r.Generator, trial, state)
	if r.ExitCode != nil {
		fmt.Fprintf(w, "  exit %d in %.2fs (setup %.0f ms), answer from %s; read %d files; %d denials\n",
			*r.ExitCode, r.DurationS, r.SetupMS, r.AnswerFrom, len(r.FilesRead), len(r.Denials))
	}
	if r.Turns > 0 {
		fmt.Fprintf(w, "  %d turns, %d tool calls, stop %s\n", r.Turns, r.ToolCalls, r.StopReason)
	}
	if r.Tokens != nil {
		fmt.Fprintf(w, "  tokens %d in, %d out\n", r.Tokens.Prompt, r.Tokens.Completion)
	}
	for _, st := range r.Stages {
		fmt.Fprintf(w, "  stage %s: %s\n", st.Stage, stageState(st))
	}
	if pol := r.ParsedPolicy(); pol != nil {
		fmt.Fprintf(w, "  read %d, write %d, execute %d patterns\n", len(pol.Get(policy.Read)), len(pol.Get(policy.Write)), len(pol.Get(policy.Execute)))
	}
	fmt.Fprintf(w, "  run %s\n", id)
}

// generatorModel is the model configuration of a bench's gen:openai:MODEL
// and gen:st:MODEL sources (the first one's model; each source sets its own), from the
// model flags, the config file and the environment; nil when there is none.
func generatorModel(sources []bench.Source, f modelFlags) (*modelconfig.Config, error) {
	for _, s := range sources {
		if g, err := genname.Parse(s.Generator); err == nil && g.UsesModel() {
			return f.generatorConfig(g)
		}
	}
	return nil, nil
}
