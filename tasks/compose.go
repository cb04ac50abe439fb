package tasks

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// composeFiles are the names a task's compose file may have, in
// environment/.
var composeFiles = []string{"docker-compose.yaml", "docker-compose.yml", "compose.yaml", "compose.yml"}

// MainService is the compose service the agent runs in (Harbor's name).
const MainService = "main"

// Sidecar is a compose service other than the agent's: a sibling
// container built from its own Dockerfile, sharing the agent's private
// network namespace.
type Sidecar struct {
	Name string
	// Context is the build context (a directory below environment/);
	// Dockerfile the file in it.
	Context, Dockerfile string
	// Entrypoint and Command override the image's (nil: the image's).
	Entrypoint, Command []string
	// Env is added to the image's environment.
	Env []string
}

// ComposeError names what a task's compose file holds that runs cannot
// honour; nothing in it is silently ignored.
type ComposeError struct {
	File    string
	Service string
	Reason  string
}

func (e *ComposeError) Error() string {
	if e.Service == "" {
		return fmt.Sprintf("%s: %s", e.File, e.Reason)
	}
	return fmt.Sprintf("%s: service %q: %s", e.File, e.Service, e.Reason)
}

// sidecarKeys are the keys of a sidecar service that runs honour;
// expose only documents ports (the network namespace is shared).
var sidecarKeys = map[string]bool{
	"build": true, "image": true, "command": true, "entrypoint": true,
	"environment": true, "depends_on": true, "expose": true,
}

// LoadSidecars reads the task's compose file, if any, and returns its
// services other than the agent's ("main", or the one built from
// environment/ itself). The agent's own service is described by the
// Dockerfile and task.toml, so its keys are not read.
func LoadSidecars(t *Task) ([]Sidecar, error) {
	for _, name := range composeFiles {
		data, err := os.ReadFile(filepath.Join(t.ContextDir(), name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return ParseCompose(DirEnvironment+"/"+name, data)
	}
	return nil, nil
}

// compose reports what a run could not honour of the task's compose
// file (tasks check): every unsupported key is named.
func (c *dirCheck) compose() {
	for _, name := range composeFiles {
		rel := DirEnvironment + "/" + name
		if !c.has(rel) {
			continue
		}
		data, ok := c.read(rel, false)
		if !ok {
			return
		}
		if _, err := ParseCompose(rel, data); err != nil {
			ps := c.file(rel)
			var ce *ComposeError
			if errors.As(err, &ce) {
				ps.add(0, ce.Service, "%s", ce.Reason)
				return
			}
			ps.add(0, "", "%v", err)
		}
		return
	}
}

// ParseCompose parses a compose file's sidecars; file names it in
// errors. Pure.
func ParseCompose(file string, data []byte) ([]Sidecar, error) {
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, &ComposeError{File: file, Reason: err.Error()}
	}
	for k := range doc {
		if k != "services" && k != "version" && k != "name" {
			return nil, &ComposeError{File: file, Reason: fmt.Sprintf("top-level %q is not supported", k)}
		}
	}
	services, ok := doc["services"].(map[string]any)
	if !ok || len(services) == 0 {
		return nil, &ComposeError{File: file, Reason: "no services"}
	}
	names := make([]string, 0, len(services))
	for n := range services {
		names = append(names, n)
	}
	sort.Strings(names)
	main := ""
	if _, ok := services[MainService]; ok {
		main = MainService
	} else {
		for _, n := range names {
			if svc, ok := services[n].(map[string]any); ok {
				if ctx, _, err := buildOf(svc["build"]); err == nil && path.Clean(ctx) == "." {
					main = n
					break
				}
			}
		}
	}
	if main == "" {
		return nil, &ComposeError{File: file, Reason: `no service for the agent (one named "main", or built from environment/ itself)`}
	}
	var out []Sidecar
	for _, n := range names {
		if n == main {
			continue
		}
		sc, err := parseSidecar(n, services[n])
		if err != nil {
			return nil, &ComposeError{File: file, Service: n, Reason: err.Error()}
		}
		out = append(out, sc)
	}
	return out, nil
}

func parseSidecar(name string, v any) (Sidecar, error) {
	svc, ok := v.(map[string]any)
	if !ok {
		return Sidecar{}, errors.New("not a mapping")
	}
	if !validServiceName(name) {
		return Sidecar{}, errors.New("a service name must be a valid host name")
	}
	for k := range svc {
		if !sidecarKeys[k] {
			return Sidecar{}, fmt.Errorf("%q is not supported", k)
		}
	}
	sc := Sidecar{Name: name}
	var err error
	if svc["build"] == nil {
		return Sidecar{}, errors.New("needs build: images cannot be pulled here")
	}
	if sc.Context, sc.Dockerfile, err = buildOf(svc["build"]); err != nil {
		return Sidecar{}, err
	}
	if sc.Entrypoint, err = commandOf(svc["entrypoint"]); err != nil {
		return Sidecar{}, fmt.Errorf("entrypoint: %w", err)
	}
	if sc.Command, err = commandOf(svc["command"]); err != nil {
		return Sidecar{}, fmt.Errorf("command: %w", err)
	}
	if sc.Env, err = environmentOf(svc["environment"]); err != nil {
		return Sidecar{}, fmt.Errorf("environment: %w", err)
	}
	return sc, nil
}

// buildOf reads `build: DIR` or `build: {context: DIR, dockerfile: F}`;
// the context must stay inside environment/.
func buildOf(v any) (ctx, dockerfile string, err error) {
	dockerfile = "Dockerfile"
	switch b := v.(type) {
	case string:
		ctx = b
	case map[string]any:
		for k := range b {
			if k != "context" && k != "dockerfile" {
				return "", "", fmt.Errorf("build: %q is not supported", k)
			}
		}
		ctx, _ = b["context"].(string)
		if d, ok := b["dockerfile"].(string); ok && d != "" {
			dockerfile = d
		}
	default:
		return "", "", errors.New("build: want a directory or {context, dockerfile}")
	}
	if ctx == "" {
		ctx = "."
	}
	for _, p := range []string{ctx, path.Join(ctx, dockerfile)} {
		if path.IsAbs(p) || path.Clean(p) == ".." || strings.HasPrefix(path.Clean(p), "../") {
			return "", "", fmt.Errorf("build: %q is outside environment/", p)
		}
	}
	return path.Clean(ctx), dockerfile, nil
}

// commandOf reads a command as a list, or a string run by /bin/sh -c.
func commandOf(v any) ([]string, error) {
	switch c := v.(type) {
	case nil:
		return nil, nil
	case string:
		return []string{"/bin/sh", "-c", c}, nil
	case []any:
		out := make([]string, 0, len(c))
		for _, a := range c {
			s, ok := a.(string)
			if !ok {
				return nil, fmt.Errorf("want strings, got %v", a)
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, errors.New("want a string or a list of strings")
}

// environmentOf reads `KEY: value` or `- KEY=value`.
func environmentOf(v any) ([]string, error) {
	switch e := v.(type) {
	case nil:
		return nil, nil
	case map[string]any:
		out := make([]string, 0, len(e))
		for k, val := range e {
			out = append(out, fmt.Sprintf("%s=%v", k, val))
		}
		sort.Strings(out)
		return out, nil
	case []any:
		var out []string
		for _, a := range e {
			s, ok := a.(string)
			if !ok || !strings.Contains(s, "=") {
				return nil, fmt.Errorf("want KEY=VALUE, got %v", a)
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, errors.New("want a mapping or a list of KEY=VALUE")
}

func validServiceName(n string) bool {
	if n == "" || len(n) > 63 {
		return false
	}
	for _, r := range n {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}
