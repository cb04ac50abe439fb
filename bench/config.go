package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"time"

	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/agent/modelconfig"
	"github.com/authbench/authbench/capability"
	"github.com/authbench/authbench/internal/safefile"
	"github.com/authbench/authbench/netproxy/netpolicy"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/trial"
)

// Config is one benchmark: what to run and where to put the results.
type Config struct {
	// TasksDir holds the tasks (found with tasks.Discover).
	TasksDir string
	Sources  []Source
	// Agent is "oracle", `cmd:COMMAND` or `openai:MODEL`; Model is the
	// model of openai:MODEL (resolved, with its API key: never stored).
	Agent string
	Model *modelconfig.Config
	// GenModel is the model of gen:openai:MODEL sources (resolved, with
	// its API key: never stored); its Model is set per source.
	GenModel *modelconfig.Config
	Trials   int
	// Parallel is how many runs are in flight at once.
	Parallel int
	Shard    Shard
	// Semantics is the enforcement semantics: "published" or "precise".
	Semantics string
	// Caps is the agents' capability set ("none", "docker" or a list;
	// "" for each task's own, see taskrun.Options.Capabilities).
	Caps string
	// AgentAllowHosts are allow-list entries of every run's agent phase
	// (--agent-allow-host; docs/tasks.md, "Network policy").
	AgentAllowHosts []string
	// TrustVerifiers keeps runs whose verifier ran agent-written files in
	// the success rates.
	TrustVerifiers bool
	// BaseMap maps FROM images to local ones.
	BaseMap map[string]string
	// Out is the out dir (Harbor's job layout).
	Out string
	// Requests is the decider of the model agent's run-time permission
	// requests ("": none; not for the unconstrained source, which has no
	// policy to widen); MaxRequests and RequestTimeoutS bound them (0:
	// the defaults).
	Requests        string
	MaxRequests     int
	RequestTimeoutS float64
	// Pipeline, when set, runs its stages (bench --pipeline) instead of
	// Sources × Agent × Trials: Sources are set from it, Agent and Trials
	// are unused, and Model is the endpoint of its model executors (each
	// with its own model name).
	Pipeline *Pipeline
	// Attribute re-runs each failed run with its deciding denial's
	// permission added (Record.Attribution) once every run is stored; it
	// is not a setting of the out dir (a bench may be resumed with it).
	Attribute bool
}

// Settings are what make an out dir's results comparable: a bench
// resumed in an out dir must have the same settings (parallelism may
// change).
type Settings struct {
	Tasks          string            `json:"tasks"`
	Sources        []string          `json:"sources"`
	Agent          string            `json:"agent"`
	Trials         int               `json:"trials"`
	Shard          string            `json:"shard"`
	Semantics      string            `json:"semantics"`
	Caps           string            `json:"caps,omitempty"`
	AllowHosts     []string          `json:"agent_allow_hosts,omitempty"`
	TrustVerifiers bool              `json:"trust_verifiers"`
	BaseMap        map[string]string `json:"base_map,omitempty"`
	// Requests, MaxRequests and RequestTimeoutS: Config's (absent in out
	// dirs made before them, which had none).
	Requests        string  `json:"requests,omitempty"`
	MaxRequests     int     `json:"max_requests,omitempty"`
	RequestTimeoutS float64 `json:"request_timeout_s,omitempty"`
	// Pipeline is a pipeline bench's layout (absent for a bench of
	// sources).
	Pipeline *Pipeline `json:"pipeline,omitempty"`
}

// Settings returns the configuration's settings.
func (c *Config) Settings() Settings {
	s := Settings{Tasks: c.TasksDir, Agent: c.Agent, Trials: c.Trials, Shard: c.Shard.String(),
		Semantics: c.Semantics, Caps: c.Caps, AllowHosts: c.AgentAllowHosts, TrustVerifiers: c.TrustVerifiers, BaseMap: c.BaseMap,
		Requests: c.Requests, MaxRequests: c.MaxRequests, RequestTimeoutS: c.RequestTimeoutS, Pipeline: c.Pipeline}
	for _, src := range c.Sources {
		s.Sources = append(s.Sources, src.Name)
	}
	return s
}

// check validates the configuration and makes its paths absolute.
func (c *Config) check() error {
	if c.TasksDir == "" || c.Out == "" {
		return fmt.Errorf("bench: the tasks dir and the out dir are required")
	}
	var err error
	if c.TasksDir, err = filepath.Abs(c.TasksDir); err != nil {
		return err
	}
	if c.Out, err = filepath.Abs(c.Out); err != nil {
		return err
	}
	if c.Pipeline != nil {
		if err := c.checkPipeline(); err != nil {
			return err
		}
	} else if err := c.checkAgent(); err != nil {
		return err
	}
	if c.Trials < 1 {
		return fmt.Errorf("bench: trials must be at least 1, not %d", c.Trials)
	}
	if c.Parallel < 1 {
		c.Parallel = 1
	}
	if c.Shard.Count == 0 {
		c.Shard = Shard{Count: 1}
	}
	sem, err := policy.ParseSemanticsOr(c.Semantics, policy.DefaultTaskSemantics)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	c.Semantics = string(sem)
	if c.Caps != "" {
		if _, err := capability.ParseSet(c.Caps); err != nil {
			return fmt.Errorf("bench: caps: %w", err)
		}
	}
	if _, err := netpolicy.ParseAllowList("--agent-allow-host", c.AgentAllowHosts); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	return c.checkRequests()
}

// JobConfigFile and JobResultFile are the job's files in the out dir
// (Harbor's job layout); each trial directory has files of the same
// names.
const (
	JobConfigFile = "config.json"
	JobResultFile = "result.json"
)

// jobConfig is the out dir's config.json: Harbor's job config fields
// that apply, and the bench's settings.
type jobConfig struct {
	JobName          string              `json:"job_name"`
	JobsDir          string              `json:"jobs_dir"`
	NAttempts        int                 `json:"n_attempts"`
	NConcurrent      int                 `json:"n_concurrent_trials"`
	Agents           []trial.Name        `json:"agents"`
	Datasets         []trial.DatasetPath `json:"datasets"`
	CreatedAt        time.Time           `json:"created_at"`
	AuthbenchVersion string              `json:"authbench_version,omitempty"`
	Authbench        Settings            `json:"authbench"`
}

// SettingsMismatchError is an out dir made with other settings.
type SettingsMismatchError struct {
	Out     string
	Setting string
	Have    any
	Want    any
}

func (e *SettingsMismatchError) Error() string {
	return fmt.Sprintf("out dir %s was made with %s %v, not %v: use another out dir or the same settings",
		e.Out, e.Setting, jsonText(e.Have), jsonText(e.Want))
}

func jsonText(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}

// claimOutDir writes the job config of a new out dir, or checks that an
// existing one has the same settings.
func claimOutDir(c *Config, out *safefile.Dir, version string) error {
	want := c.Settings()
	data, err := out.ReadFile(JobConfigFile)
	if errors.Is(err, unix.ENOENT) {
		jc := jobConfig{JobName: filepath.Base(c.Out), JobsDir: filepath.Dir(c.Out), NAttempts: c.Trials,
			NConcurrent: c.Parallel, Agents: []trial.Name{{Name: c.Agent}}, Datasets: []trial.DatasetPath{{Path: c.TasksDir}},
			CreatedAt: time.Now().UTC(), AuthbenchVersion: version, Authbench: want}
		return writeJSONFile(out, JobConfigFile, jc)
	}
	if err != nil {
		return fmt.Errorf("out dir: %w", err)
	}
	var have jobConfig
	if err := json.Unmarshal(data, &have); err != nil {
		return fmt.Errorf("out dir %s: its %s is not a bench's job config: %w", c.Out, JobConfigFile, err)
	}
	return compareSettings(c.Out, have.Authbench, want)
}

// compareSettings names the first setting that differs.
func compareSettings(out string, have, want Settings) error {
	checks := []struct {
		name       string
		have, want any
	}{
		{"--tasks", have.Tasks, want.Tasks},
		{"--sources", have.Sources, want.Sources},
		{"--agent", have.Agent, want.Agent},
		{"--trials", have.Trials, want.Trials},
		{"--shard", have.Shard, want.Shard},
		{"--semantics", have.Semantics, want.Semantics},
		{"--caps", have.Caps, want.Caps},
		{"--agent-allow-host", have.AllowHosts, want.AllowHosts},
		{"--trust-verifiers", have.TrustVerifiers, want.TrustVerifiers},
		{"--base-map", have.BaseMap, want.BaseMap},
		{"--requests", have.Requests, want.Requests},
		{"--max-requests", have.MaxRequests, want.MaxRequests},
		{"--request-timeout", have.RequestTimeoutS, want.RequestTimeoutS},
		{"--pipeline", have.Pipeline, want.Pipeline},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.have, c.want) && !(isEmptyMap(c.have) && isEmptyMap(c.want)) {
			return &SettingsMismatchError{Out: out, Setting: c.name, Have: c.have, Want: c.want}
		}
	}
	return nil
}

func isEmptyMap(v any) bool {
	m, ok := v.(map[string]string)
	return ok && len(m) == 0
}

// writeJSONFile writes v, indented, to the file name of the out dir.
func writeJSONFile(out *safefile.Dir, name string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := out.WriteFile(name, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", out.Join(name), err)
	}
	return nil
}

// LoadSettings reads the settings of a bench out dir (its config.json).
func LoadSettings(dir string) (Settings, error) {
	data, err := readOutDirFile(dir, JobConfigFile)
	if err != nil {
		return Settings{}, fmt.Errorf("settings of %s: %w", dir, err)
	}
	var jc jobConfig
	if err := json.Unmarshal(data, &jc); err != nil {
		return Settings{}, fmt.Errorf("settings of %s: %s is not a bench's job config: %w", dir, JobConfigFile, err)
	}
	return jc.Authbench, nil
}
