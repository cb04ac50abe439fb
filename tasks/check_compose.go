package tasks

import (
	"fmt"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// FileCompose is the Harbor task's optional compose file.
const FileCompose = "environment/docker-compose.yaml"

// ComposeTopLevel are the top-level compose keys a run honours or that
// change nothing in it.
var ComposeTopLevel = map[string]bool{"services": true, "version": true, "name": true}

// ComposeServiceKeys are the keys of the task's own service that a run
// reproduces: it builds environment/Dockerfile itself, names the image
// itself, replaces the command with the agent's, and takes resources from
// task.toml. Anything else would be silently ignored, so `tasks check`
// names it.
var ComposeServiceKeys = map[string]bool{
	"build": true, "image": true, "container_name": true, "command": true,
	"init": true, "tty": true, "stdin_open": true,
}

// compose names every feature of environment/docker-compose.yaml that a
// run would not honour: sidecar services (a run starts only the task's
// own container), unknown top-level keys, service keys outside
// ComposeServiceKeys, and a build of another Dockerfile or context.
func (c *dirCheck) compose() {
	data, ok := c.read(FileCompose, false)
	if !ok {
		return
	}
	ps := c.file(FileCompose)
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		ps.add(0, "", "not valid YAML: %v", err)
		return
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		ps.add(0, "", "want a mapping with services")
		return
	}
	var services *yaml.Node
	forPairs(doc.Content[0], func(k, v *yaml.Node) {
		switch {
		case k.Value == "services":
			services = v
		case !ComposeTopLevel[k.Value]:
			ps.add(k.Line, k.Value, "unsupported compose feature: a run ignores top-level %q", k.Value)
		}
	})
	if services == nil || services.Kind != yaml.MappingNode || len(services.Content) == 0 {
		ps.add(0, "services", "no services")
		return
	}
	var names []string
	forPairs(services, func(k, _ *yaml.Node) { names = append(names, k.Value) })
	main := mainService(services)
	var sidecars []string
	forPairs(services, func(k, v *yaml.Node) {
		if k.Value != main {
			sidecars = append(sidecars, k.Value)
			return
		}
		c.composeService(ps, k.Value, v)
	})
	if len(sidecars) > 0 {
		sort.Strings(sidecars)
		ps.add(0, "services", "unsupported compose feature: sidecar services (%s) beside the task's own %q; a run starts only the task's container, so they would not exist", strings.Join(sidecars, ", "), main)
	}
}

// mainService is the service built from environment/Dockerfile (build "."
// or build.context "."), else the one Harbor calls "main", else the first.
func mainService(services *yaml.Node) string {
	var first, named, built string
	forPairs(services, func(k, v *yaml.Node) {
		if first == "" {
			first = k.Value
		}
		if k.Value == "main" {
			named = k.Value
		}
		if ctx, _ := buildOf(v); built == "" && (ctx == "." || ctx == "./") {
			built = k.Value
		}
	})
	switch {
	case built != "":
		return built
	case named != "":
		return named
	}
	return first
}

// buildOf returns a service's build context and dockerfile ("" when
// unset).
func buildOf(svc *yaml.Node) (context, dockerfile string) {
	forPairs(svc, func(k, v *yaml.Node) {
		if k.Value != "build" {
			return
		}
		if v.Kind == yaml.ScalarNode {
			context = v.Value
			return
		}
		forPairs(v, func(bk, bv *yaml.Node) {
			switch bk.Value {
			case "context":
				context = bv.Value
			case "dockerfile":
				dockerfile = bv.Value
			}
		})
	})
	return context, dockerfile
}

func (c *dirCheck) composeService(ps problems, name string, svc *yaml.Node) {
	if svc.Kind != yaml.MappingNode {
		ps.add(svc.Line, "services."+name, "want a mapping")
		return
	}
	forPairs(svc, func(k, _ *yaml.Node) {
		if !ComposeServiceKeys[k.Value] {
			ps.add(k.Line, fmt.Sprintf("services.%s.%s", name, k.Value), "unsupported compose feature: a run ignores %q of the task's service", k.Value)
		}
	})
	ctx, dockerfile := buildOf(svc)
	if ctx != "" && ctx != "." && ctx != "./" || dockerfile != "" && dockerfile != "Dockerfile" && dockerfile != "./Dockerfile" {
		ps.add(svc.Line, fmt.Sprintf("services.%s.build", name), "unsupported compose feature: a run builds environment/Dockerfile with environment/ as its context, not context %q dockerfile %q", ctx, dockerfile)
	}
}

// forPairs calls f with each key and value of a mapping node.
func forPairs(m *yaml.Node, f func(k, v *yaml.Node)) {
	if m == nil || m.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		f(m.Content[i], m.Content[i+1])
	}
}
