package runapi

import (
	"fmt"
	"path"
	"strings"
)

// Files of a run's directory. Every run has an event log; a command run
// its stdout and stderr; a task run its result and the logs and traces of
// its agent and verifiers; a generation its record and the exploration's
// files. The Artifact tables below name each with its API name.
const (
	FileEvents = "events.jsonl"
	FileStdout = "stdout.log"
	FileStderr = "stderr.log"

	FileResult                = "result.json"
	FilePlan                  = "plan.json"
	FileBuildLog              = "build.log"
	FileAgentStdout           = "agent-stdout.log"
	FileAgentStderr           = "agent-stderr.log"
	FileVerifierUtility       = "verifier-utility.log"
	FileVerifierAttack        = "verifier-attack.log"
	FileVerifierUtilityEvents = "verifier-utility-events.jsonl"
	FileVerifierAttackEvents  = "verifier-attack-events.jsonl"
	FileTrajectory            = "trajectory.json"
	FileEventsRestart1        = "events-restart-1.jsonl"
	FileNetwork               = "network.jsonl"
	FileHarnessTranscript     = "harness-transcript.jsonl"

	FileGeneration      = "generation.json"
	FileGeneratedPolicy = "policy.json"
	FileGeneratorOutput = "generator-output.json"
	FileGeneratorStdout = "generator-stdout.log"
	FileGeneratorStderr = "generator-stderr.log"
)

// VerifierLogFile is the output of verifier name ("utility", "attack").
func VerifierLogFile(name string) string { return "verifier-" + name + ".log" }

// VerifierLogsDir holds verifier name's own /logs/verifier (as
// logs/verifier below it): mounted into its container alone, so that
// nothing else of the run (a process the agent left running) can write
// the reward read from it.
func VerifierLogsDir(name string) string { return "verifier-" + name + "-logs" }

// VerifierEventsFile is the trace of verifier name.
func VerifierEventsFile(name string) string { return "verifier-" + name + "-events.jsonl" }

// Names the API serves a run's files under (GET /v1/runs/{id}/{name}).
const (
	LogEvents                = "events"
	LogStdout                = "stdout"
	LogStderr                = "stderr"
	LogAgentStdout           = "agent-stdout"
	LogAgentStderr           = "agent-stderr"
	LogVerifierUtility       = "verifier-utility"
	LogVerifierAttack        = "verifier-attack"
	LogResult                = "result"
	LogPlan                  = "plan"
	LogBuild                 = "build"
	LogVerifierUtilityEvents = "verifier-utility-events"
	LogVerifierAttackEvents  = "verifier-attack-events"
	LogTrajectory            = "trajectory"
	LogEventsRestart1        = "events-restart-1"
	LogNetwork               = "network"
	LogHarnessTranscript     = "harness-transcript"
	LogGeneration            = "generation"
	LogGeneratedPolicy       = "generated-policy"
	LogGeneratorStdout       = "generator-stdout"
	LogGeneratorStderr       = "generator-stderr"
	LogGeneratorOutput       = "generator-output"
)

// Artifact is one file of a run, named in each place it appears, as
// Harbor's TrialPaths names a trial's files: File in the run's directory,
// API in GET /v1/runs/{id}/{API}, and Trial in a bench trial's directory
// (Harbor's agent/ and verifier/ folders, authbench/ for the rest;
// generation/ for a generation's files); Trial is empty for a file a
// trial does not keep.
type Artifact struct {
	API   string
	File  string
	Trial string
}

// CommandArtifacts are the files of a command run.
var CommandArtifacts = []Artifact{
	{API: LogEvents, File: FileEvents},
	{API: LogStdout, File: FileStdout},
	{API: LogStderr, File: FileStderr},
}

// TaskArtifacts are the files of a task run.
var TaskArtifacts = []Artifact{
	{API: LogAgentStdout, File: FileAgentStdout, Trial: "agent/stdout.txt"},
	{API: LogAgentStderr, File: FileAgentStderr, Trial: "agent/stderr.txt"},
	{API: LogVerifierUtility, File: FileVerifierUtility, Trial: "verifier/utility.log"},
	{API: LogVerifierAttack, File: FileVerifierAttack, Trial: "verifier/attack.log"},
	{API: LogResult, File: FileResult, Trial: "authbench/" + FileResult},
	{API: LogEvents, File: FileEvents, Trial: "authbench/" + FileEvents},
	{API: LogPlan, File: FilePlan, Trial: "authbench/" + FilePlan},
	{API: LogBuild, File: FileBuildLog, Trial: "authbench/" + FileBuildLog},
	{API: LogVerifierUtilityEvents, File: FileVerifierUtilityEvents},
	{API: LogVerifierAttackEvents, File: FileVerifierAttackEvents},
	{API: LogTrajectory, File: FileTrajectory, Trial: "agent/" + FileTrajectory},
	{API: LogEventsRestart1, File: FileEventsRestart1},
	{API: LogNetwork, File: FileNetwork, Trial: "authbench/" + FileNetwork},
	{API: LogHarnessTranscript, File: FileHarnessTranscript, Trial: "agent/harness-transcript.jsonl"},
}

// GenerationDir is where a trial keeps its generation's files.
const GenerationDir = "generation"

// An st: generator's tightness stage's transcript (its sufficiency
// stage's is FileTrajectory), and its API name.
const (
	FileTightnessTrajectory = "tightness-trajectory.json"
	LogTightnessTrajectory  = "tightness-trajectory"
)

// GenerationArtifacts are the files of a permission generation.
var GenerationArtifacts = []Artifact{
	{API: LogGeneration, File: FileGeneration, Trial: GenerationDir + "/" + FileGeneration},
	{API: LogGeneratedPolicy, File: FileGeneratedPolicy, Trial: GenerationDir + "/" + FileGeneratedPolicy},
	{API: LogTrajectory, File: FileTrajectory, Trial: GenerationDir + "/" + FileTrajectory},
	{API: LogTightnessTrajectory, File: FileTightnessTrajectory, Trial: GenerationDir + "/" + FileTightnessTrajectory},
	{API: LogGeneratorStdout, File: FileGeneratorStdout, Trial: GenerationDir + "/" + FileGeneratorStdout},
	{API: LogGeneratorStderr, File: FileGeneratorStderr, Trial: GenerationDir + "/" + FileGeneratorStderr},
	{API: LogEvents, File: FileEvents, Trial: GenerationDir + "/" + FileEvents},
	{API: LogPlan, File: FilePlan, Trial: GenerationDir + "/" + FilePlan},
	{API: LogGeneratorOutput, File: FileGeneratorOutput},
	{API: LogBuild, File: FileBuildLog},
}

// BuildArtifacts are the files of an image build.
var BuildArtifacts = []Artifact{
	{API: LogBuild, File: FileBuildLog},
}

// logFiles maps every API name to its file: one file per name whatever
// the kind of run (checkArtifacts).
var logFiles = func() map[string]string {
	files, err := checkArtifacts(CommandArtifacts, TaskArtifacts, GenerationArtifacts, BuildArtifacts)
	if err != nil {
		panic(err)
	}
	return files
}()

// LogFile is the file that API name name means in any kind's table; the
// daemon serves a run only the names of its own kind's (ArtifactFile).
func LogFile(name string) (file string, ok bool) {
	file, ok = logFiles[name]
	return file, ok
}

// checkArtifacts returns the API names of tables mapped to their files; it
// fails when a name means two files, or when a trial path is not a clean
// relative path or is used twice in one table.
func checkArtifacts(tables ...[]Artifact) (map[string]string, error) {
	files := map[string]string{}
	for _, table := range tables {
		trial := map[string]bool{}
		for _, a := range table {
			if f, ok := files[a.API]; ok && f != a.File {
				return nil, fmt.Errorf("run API name %q names two files, %s and %s", a.API, f, a.File)
			}
			files[a.API] = a.File
			if a.Trial == "" {
				continue
			}
			if path.IsAbs(a.Trial) || path.Clean(a.Trial) != a.Trial || a.Trial == ".." || len(a.Trial) > 2 && a.Trial[:3] == "../" {
				return nil, fmt.Errorf("artifact %s: trial path %q is not a clean relative path", a.API, a.Trial)
			}
			if trial[a.Trial] {
				return nil, fmt.Errorf("artifact %s: trial path %q is used twice", a.API, a.Trial)
			}
			trial[a.Trial] = true
		}
	}
	return files, nil
}

// kindFiles are a kind of run's files and the one of them Client.Wait
// follows to the run's end (a small one: the run's end, not its bytes,
// is what a waiter wants).
type kindFiles struct {
	table []Artifact
	wait  string
}

// kindArtifacts maps every kind of run to its files; a fifth kind is one
// more entry (TestEveryKindHasArtifacts).
var kindArtifacts = map[Kind]kindFiles{
	KindExec:     {CommandArtifacts, LogStderr},
	KindTask:     {TaskArtifacts, LogAgentStderr},
	KindGenerate: {GenerationArtifacts, LogGeneratorStderr},
	KindBuild:    {BuildArtifacts, LogBuild},
}

// ArtifactsOf are the files a run of kind makes (nil for an unknown
// kind): the only ones GET /v1/runs/{id}/{name} serves of such a run.
func ArtifactsOf(kind Kind) []Artifact { return kindArtifacts[kind].table }

// WaitLog is the API name of the file Client.Wait follows to the end of
// a run of kind ("" for an unknown kind).
func WaitLog(kind Kind) string { return kindArtifacts[kind].wait }

// ArtifactError is a file name that a run's kind does not make (GET
// /v1/runs/{id}/{name} answers 404 with Allowed): a name of another
// kind, a file name instead of its API name, a path.
type ArtifactError struct {
	// Kind is the run's kind and Name the name asked for.
	Kind Kind
	Name string
	// Allowed are the API names the kind's table lists, in its order.
	Allowed []string
}

func (e *ArtifactError) Error() string {
	return fmt.Sprintf("a %s run has no file %q (its files: %s)", e.Kind, e.Name, strings.Join(e.Allowed, ", "))
}

// ArtifactFile is the file in a run's directory that API name name
// means for a run of kind: a name of table only, else an *ArtifactError
// naming the table's names.
func ArtifactFile(kind Kind, table []Artifact, name string) (string, error) {
	allowed := make([]string, len(table))
	for i, a := range table {
		if a.API == name {
			return a.File, nil
		}
		allowed[i] = a.API
	}
	return "", &ArtifactError{Kind: kind, Name: name, Allowed: allowed}
}
