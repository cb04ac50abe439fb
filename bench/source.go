package bench

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/authbench/authbench/generate/genname"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tasks"
	"github.com/authbench/authbench/trial"
)

// Source is one policy source.
type Source struct {
	// Name is how the source is written: "spec", "dir:/abs/path", ...
	Name string
	// Dir is the policy directory of a dir: source (absolute).
	Dir string
	// Generator is a gen: source's generator name.
	Generator string
}

// ParseSources parses a comma-separated list of sources. A dir: path is
// made absolute; duplicates are an error. A gen:cmd: source takes the
// rest of the list, commas included (a command line may hold them).
func ParseSources(list string) ([]Source, error) {
	var out []Source
	seen := map[string]bool{}
	items := strings.Split(list, ",")
	for i := 0; i < len(items); i++ {
		item := strings.TrimSpace(items[i])
		if strings.HasPrefix(item, runapi.SourceGenPrefix+genname.KindCmd+":") {
			item = strings.TrimSpace(strings.Join(items[i:], ","))
			items = items[:i+1]
		}
		if item == "" {
			continue
		}
		s, err := parseSource(item)
		if err != nil {
			return nil, err
		}
		if seen[s.Name] {
			return nil, fmt.Errorf("source %q given twice", s.Name)
		}
		seen[s.Name] = true
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no policy source given (want one of %s)", runapi.SourceNames(false))
	}
	return out, nil
}

func parseSource(item string) (Source, error) {
	kind, arg, ok := runapi.KindOfSource(item)
	switch {
	case !ok || !kind.Bench:
		return Source{}, fmt.Errorf("unknown policy source %q (want one of %s)", item, runapi.SourceNames(false))
	case !kind.Prefix:
		return Source{Name: item}, nil
	case kind.Name == runapi.SourceGenPrefix:
		name := arg
		if _, err := genname.Parse(name); err != nil {
			return Source{}, fmt.Errorf("source %q: %w", item, err)
		}
		return Source{Name: item, Generator: name}, nil
	default: // dir:PATH
		p := arg
		if p == "" {
			return Source{}, fmt.Errorf("source %q: dir: needs a path", item)
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return Source{}, fmt.Errorf("source %q: %w", item, err)
		}
		st, err := os.Stat(abs)
		if err != nil {
			return Source{}, fmt.Errorf("source %q: %w", item, err)
		}
		if !st.IsDir() {
			return Source{}, fmt.Errorf("source %q: %s is not a directory", item, abs)
		}
		return Source{Name: runapi.SourceDirPrefix + abs, Dir: abs}, nil
	}
}

// denyAll is what a run whose policy is invalid runs under.
const denyAll = `{"read": [], "write": [], "execute": []}`

// runPolicy is a source's policy for one task.
type runPolicy struct {
	// source is the task request's policy source (runapi.Source*).
	source string
	// doc is π as the daemon gets it (nil for unconstrained and spec).
	doc []byte
	// pol is π parsed (nil for unconstrained).
	pol *policy.Policy
	// valid is false for a missing or malformed policy (then the run is
	// deny-all); err says why.
	valid bool
	err   string
	// generated: a generator's answer; an invalid one is not run (the
	// run is classified invalid_policy and scores 0).
	generated bool
}

// trial is the part of rp a trial's row is derived from.
func (rp runPolicy) trial() trial.Policy {
	return trial.Policy{Source: rp.source, Policy: rp.pol, Valid: rp.valid, Error: rp.err}
}

// policyFor returns the source's policy for task t; trace is the
// recorded trace policy when the source is trace.
func (s Source) policyFor(t *tasks.Task, trace *policy.Policy) runPolicy {
	switch {
	case s.Name == runapi.SourceUnconstrained:
		return runPolicy{source: runapi.SourceUnconstrained, valid: true}
	case s.Name == runapi.SourceSpec:
		return runPolicy{source: runapi.SourceSpec, pol: runapi.SpecPolicy(t.Spec), valid: true}
	case s.Name == runapi.SourceAllowAll:
		return fromDocument([]byte(genname.AllowAllDocument), runapi.SourceAllowAll, t.Spec)
	case s.Name == runapi.SourceTrace:
		doc, err := trace.MarshalJSON() // with its network entries
		if err != nil {
			return invalidPolicy(err.Error())
		}
		return runPolicy{source: runapi.SourcePolicy, doc: doc, pol: trace, valid: true}
	}
	return s.dirPolicy(t.Name, t.Spec)
}

// dirPolicy reads Dir/<task>.json; missing or malformed is an invalid
// policy, run as deny-all.
func (s Source) dirPolicy(task string, spec *policy.Spec) runPolicy {
	name := filepath.Join(s.Dir, task+".json")
	data, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return invalidPolicy(fmt.Sprintf("no policy file %s", name))
	}
	if err != nil {
		return invalidPolicy(err.Error())
	}
	return fromDocument(data, name, spec)
}

// fromDocument parses a policy document for the task whose spec is spec
// (its network key is accepted when the spec declares the axis).
func fromDocument(data []byte, name string, spec *policy.Spec) runPolicy {
	pol, err := policy.ParsePolicyFor(data, name, spec)
	if err != nil {
		return invalidPolicy(err.Error())
	}
	return runPolicy{source: runapi.SourcePolicy, doc: data, pol: pol, valid: true}
}

func invalidPolicy(why string) runPolicy {
	pol, err := policy.ParsePolicy([]byte(denyAll), "deny-all")
	if err != nil {
		panic(err) // a constant document
	}
	return runPolicy{source: runapi.SourcePolicy, doc: []byte(denyAll), pol: pol, err: why}
}
