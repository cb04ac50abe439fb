package bench

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tasks"
)

// Key identifies one run: the same key is the same run.
type Key struct {
	Task   string `json:"task"`
	Source string `json:"source"`
	Agent  string `json:"agent"`
	Trial  int    `json:"trial"`
}

func (k Key) String() string {
	return fmt.Sprintf("%s/%s/%s/%d", k.Task, k.Source, k.Agent, k.Trial)
}

// Dir is the run's trial directory name in the out dir:
// task__source__agent__trial, each part made file-name safe.
func (k Key) Dir() string {
	return strings.Join([]string{k.Task, safeName(k.Source), safeName(k.Agent), strconv.Itoa(k.Trial)}, "__")
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// safeName keeps simple names as they are; anything else becomes its
// safe characters plus a short hash, so distinct names stay distinct.
func safeName(s string) string {
	clean := unsafeChars.ReplaceAllString(s, "-")
	if clean == s && len(s) <= 40 {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	if len(clean) > 24 {
		clean = clean[:24]
	}
	return strings.Trim(clean, "-") + "-" + hex.EncodeToString(sum[:4])
}

// Shard is a deterministic slice of the tasks: the tasks whose index in
// lexical order is Index modulo Count.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// ParseShard parses "I/N" (0 <= I < N); "" is the whole benchmark.
func ParseShard(s string) (Shard, error) {
	if s == "" {
		return Shard{Index: 0, Count: 1}, nil
	}
	i, n, ok := strings.Cut(s, "/")
	idx, err1 := strconv.Atoi(i)
	count, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || count < 1 || idx < 0 || idx >= count {
		return Shard{}, fmt.Errorf("shard %q: want I/N with 0 <= I < N", s)
	}
	return Shard{Index: idx, Count: count}, nil
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Has reports whether the task at index i (in lexical order of the
// whole tasks dir) belongs to the shard.
func (s Shard) Has(i int) bool { return s.Count <= 1 || i%s.Count == s.Index }

// agentsFor lists the agents run on a task: the bench's agent, and with
// the oracle the shortcut too on a sensitive task that has one, so that
// exposure is measured.
func agentsFor(t *tasks.Task, agent string) []string {
	agents := []string{agent}
	if agent == runapi.AgentOracle && t.IsSensitive() && t.AttackSmoke != "" {
		agents = append(agents, runapi.AgentShortcut)
	}
	return agents
}

// planRuns lists the runs of the tasks: task × source × agent × trial.
func planRuns(ts []*tasks.Task, sources []Source, agent string, trials int) []Key {
	var keys []Key
	for _, t := range ts {
		for _, s := range sources {
			for _, a := range agentsFor(t, agent) {
				for trial := 1; trial <= trials; trial++ {
					keys = append(keys, Key{Task: t.Name, Source: s.Name, Agent: a, Trial: trial})
				}
			}
		}
	}
	return keys
}
