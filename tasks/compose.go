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
	"time"

	"go.yaml.in/yaml/v3"
)

// composeFiles are the names a task's compose file may have, in
// environment/.
var composeFiles = []string{"docker-compose.yaml", "docker-compose.yml", "compose.yaml", "compose.yml"}

// MainService is the compose service the agent runs in (Harbor's name).
const MainService = "main"

// Compose is what a run honours of a task's compose file: the agent's
// service, its sidecars, their named volumes, and a warning for every key
// that is read but cannot change a verdict and so is not applied.
type Compose struct {
	// File is the compose file, relative to the task directory.
	File string
	// Main is the agent's service.
	Main MainServiceSpec
	// Sidecars are the other services, in the order they are started
	// (their depends_on first, then by name).
	Sidecars []Sidecar
	// Volumes are the named volumes (top-level volumes:, and any a service
	// mounts), sorted.
	Volumes []string
	// Warnings name the keys that are not applied.
	Warnings []ComposeWarning
}

// MainServiceSpec is what a run takes of the agent's service: the image is
// the task's Dockerfile and the command the agent's, so only its volumes
// and what it waits for.
type MainServiceSpec struct {
	Name      string
	Volumes   []VolumeMount
	DependsOn []Dependency
}

// Sidecar is a compose service other than the agent's: a sibling
// container built from its own Dockerfile (or a FROM of its image),
// sharing the agent's private network namespace.
type Sidecar struct {
	Name string
	// Context is the build context (a directory below environment/);
	// Dockerfile the file in it. Both "" for a service with image: only.
	Context, Dockerfile string
	// Image is the service's image: (built as FROM IMAGE when there is no
	// build).
	Image string
	// Entrypoint and Command override the image's (nil: the image's).
	Entrypoint, Command []string
	// Env is added to the image's environment.
	Env []string
	// WorkingDir and User override the image's ("" keeps them).
	WorkingDir, User string
	// Volumes are the named volumes it mounts.
	Volumes []VolumeMount
	// DependsOn are the services it waits for.
	DependsOn []Dependency
	// Healthcheck says when it is healthy (nil: the service has none).
	Healthcheck *Healthcheck
}

// VolumeMount is a named volume mounted at Target (absolute).
type VolumeMount struct {
	Volume   string
	Target   string
	ReadOnly bool
}

// Dependency conditions of depends_on.
const (
	ServiceStarted               = "service_started"
	ServiceHealthy               = "service_healthy"
	ServiceCompletedSuccessfully = "service_completed_successfully"
)

// Dependency is one entry of depends_on.
type Dependency struct {
	Service   string
	Condition string
}

// Healthcheck is a service's health test, with Docker's defaults filled
// in.
type Healthcheck struct {
	// Test is the command run in the service's container: CMD's argv, or
	// /bin/sh -c for CMD-SHELL and a plain string.
	Test        []string
	Interval    time.Duration
	Timeout     time.Duration
	StartPeriod time.Duration
	Retries     int
}

// Docker's healthcheck defaults.
const (
	DefaultHealthInterval = 30 * time.Second
	DefaultHealthTimeout  = 30 * time.Second
	DefaultHealthRetries  = 3
)

// ComposeError names what a task's compose file holds that runs cannot
// honour without running the task wrongly.
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

// ComposeWarning is a key that is read but not applied, because it cannot
// change a run's verdict.
type ComposeWarning struct {
	Service string `json:"service,omitempty"`
	Key     string `json:"key"`
	Reason  string `json:"reason"`
}

func (w ComposeWarning) String() string {
	if w.Service == "" {
		return fmt.Sprintf("%q: %s", w.Key, w.Reason)
	}
	return fmt.Sprintf("service %q: %q: %s", w.Service, w.Key, w.Reason)
}

// ignoredKeys are service keys that cannot change a verdict on one host
// with one private network: read, warned about, not applied.
var ignoredKeys = map[string]string{
	"container_name": "containers are named by the run", "restart": "services run once, for the run",
	"labels": "metadata", "logging": "logs go to the run directory", "networks": "every service shares one private network",
	"hostname": "the service's name is its host name", "init": "no init process is added",
	"stop_signal": "services are killed at the end of the run", "stop_grace_period": "services are killed at the end of the run",
	"tty": "no terminal", "stdin_open": "no standard input", "platform": "the host's platform",
	"pull_policy": "images resolve through the image map, a registry, then the offline defaults",
	"deploy":      "resource limits are the task's", "mem_limit": "resource limits are the task's", "cpus": "resource limits are the task's",
	"shm_size": "the runtime's default /dev/shm", "ulimits": "the run's limits", "extra_hosts": "service names resolve to loopback",
	"dns":      "the private network has no route out",
	"profiles": "every service runs", "scale": "one container per service", "domainname": "not applied", "x-*": "extension",
}

// refusedKeys are keys whose effect would make a run wrong or unsafe.
var refusedKeys = map[string]string{
	"ports":          "publishes ports on the host; services reach each other on the run's private network",
	"privileged":     "a privileged container is refused",
	"devices":        "host devices are refused",
	"cap_add":        "added capabilities are refused",
	"security_opt":   "security options would weaken the run's confinement",
	"pid":            "a host or shared PID namespace is refused",
	"ipc":            "a host or shared IPC namespace is refused",
	"userns_mode":    "user namespace modes are refused",
	"cgroup_parent":  "cgroup placement is the run's",
	"env_file":       "env_file is not supported: write the variables under environment",
	"secrets":        "secrets are not supported",
	"configs":        "configs are not supported",
	"volumes_from":   "volumes_from is not supported: name the volumes",
	"links":          "links are not supported: services reach each other by name",
	"external_links": "external containers do not exist here",
	"sysctls":        "sysctls are refused",
	"tmpfs":          "tmpfs mounts are not supported",
}

// LoadCompose reads the task's compose file, if any (nil when there is
// none).
func LoadCompose(t *Task) (*Compose, error) {
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
// file (tasks check): a refused key as an error, an ignored one as a
// warning, each named.
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
		ps := c.file(rel)
		cf, err := ParseCompose(rel, data)
		if err != nil {
			var ce *ComposeError
			if errors.As(err, &ce) {
				ps.add(0, ce.Service, "%s", ce.Reason)
				return
			}
			ps.add(0, "", "%v", err)
			return
		}
		for _, w := range cf.Warnings {
			ps.warn(0, w.Service, "%q is not applied: %s", w.Key, w.Reason)
		}
		return
	}
}

// ParseCompose parses a compose file; file names it in errors. Pure.
func ParseCompose(file string, data []byte) (*Compose, error) {
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, &ComposeError{File: file, Reason: err.Error()}
	}
	cf := &Compose{File: file}
	volumes := map[string]bool{}
	for _, k := range sortedKeys(doc) {
		switch {
		case k == "services" || k == "version" || k == "name" || strings.HasPrefix(k, "x-"):
		case k == "volumes":
			vs, err := topVolumes(doc[k], &cf.Warnings)
			if err != nil {
				return nil, &ComposeError{File: file, Reason: "volumes: " + err.Error()}
			}
			for _, v := range vs {
				volumes[v] = true
			}
		case k == "networks":
			cf.Warnings = append(cf.Warnings, ComposeWarning{Key: k, Reason: ignoredKeys[k]})
		default:
			return nil, &ComposeError{File: file, Reason: fmt.Sprintf("top-level %q is not supported", k)}
		}
	}
	services, ok := doc["services"].(map[string]any)
	if !ok || len(services) == 0 {
		return nil, &ComposeError{File: file, Reason: "no services"}
	}
	main := mainService(services)
	if main == "" {
		return nil, &ComposeError{File: file, Reason: `no service for the agent (one named "main", or built from environment/ itself)`}
	}
	byName := map[string]Sidecar{}
	for _, n := range sortedKeys(services) {
		if !validServiceName(n) {
			return nil, &ComposeError{File: file, Service: n, Reason: "a service name must be a valid host name"}
		}
		svc, ok := services[n].(map[string]any)
		if !ok {
			return nil, &ComposeError{File: file, Service: n, Reason: "not a mapping"}
		}
		sc, warns, err := parseService(n, svc, n == main)
		if err != nil {
			return nil, &ComposeError{File: file, Service: n, Reason: err.Error()}
		}
		cf.Warnings = append(cf.Warnings, warns...)
		for _, m := range sc.Volumes {
			volumes[m.Volume] = true
		}
		for _, d := range sc.DependsOn {
			if _, ok := services[d.Service]; !ok {
				return nil, &ComposeError{File: file, Service: n, Reason: fmt.Sprintf("depends_on: no service %q", d.Service)}
			}
			if d.Service == main {
				return nil, &ComposeError{File: file, Service: n, Reason: fmt.Sprintf("depends_on: %q is the agent's service, which starts last", d.Service)}
			}
			if d.Condition == ServiceHealthy {
				if dep, ok := services[d.Service].(map[string]any); ok && !hasHealthcheck(dep) {
					return nil, &ComposeError{File: file, Service: n, Reason: fmt.Sprintf("depends_on: %q is service_healthy but has no healthcheck", d.Service)}
				}
			}
		}
		if n == main {
			cf.Main = MainServiceSpec{Name: n, Volumes: sc.Volumes, DependsOn: sc.DependsOn}
			continue
		}
		byName[n] = sc
	}
	order, err := startOrder(byName)
	if err != nil {
		return nil, &ComposeError{File: file, Reason: err.Error()}
	}
	cf.Sidecars = order
	for v := range volumes {
		cf.Volumes = append(cf.Volumes, v)
	}
	sort.Strings(cf.Volumes)
	return cf, nil
}

// mainService finds the agent's service: "main", else the one built
// from environment/ itself.
func mainService(services map[string]any) string {
	if _, ok := services[MainService]; ok {
		return MainService
	}
	for _, n := range sortedKeys(services) {
		if svc, ok := services[n].(map[string]any); ok {
			if ctx, _, err := buildOf(svc["build"]); err == nil && svc["build"] != nil && path.Clean(ctx) == "." {
				return n
			}
		}
	}
	return ""
}

func hasHealthcheck(svc map[string]any) bool {
	hc, err := healthcheckOf(svc["healthcheck"])
	return err == nil && hc != nil
}

// parseService reads one service. The agent's service (main) takes only
// its volumes and depends_on: its image is the task's and its command
// the agent's, and its other keys are warned about.
func parseService(name string, svc map[string]any, main bool) (Sidecar, []ComposeWarning, error) {
	sc := Sidecar{Name: name}
	var warns []ComposeWarning
	warn := func(k, reason string) { warns = append(warns, ComposeWarning{Service: name, Key: k, Reason: reason}) }
	var err error
	for _, k := range sortedKeys(svc) {
		v := svc[k]
		if reason, ok := refusedKeys[k]; ok {
			if refused(k, v) {
				return sc, nil, fmt.Errorf("%q: %s", k, reason)
			}
			continue
		}
		switch k {
		case "network_mode":
			s, _ := v.(string)
			if s == "host" || strings.HasPrefix(s, "container:") || strings.HasPrefix(s, "service:") {
				return sc, nil, fmt.Errorf("%q: %q is refused: services share the run's private network", k, s)
			}
			if s != "none" && s != "bridge" && s != "default" {
				return sc, nil, fmt.Errorf("%q: %q is not supported", k, s)
			}
			warn(k, ignoredKeys["networks"])
		case "volumes":
			var hostPaths []string
			sc.Volumes, hostPaths, err = volumesOf(v)
			if err != nil {
				return sc, nil, fmt.Errorf("volumes: %w", err)
			}
			if len(hostPaths) > 0 {
				if !main {
					return sc, nil, fmt.Errorf("volumes: host path %q: a sidecar mounts named volumes only", hostPaths[0])
				}
				warn(k, fmt.Sprintf("host paths %s are not mounted: the run provides /logs and the task's files itself", strings.Join(hostPaths, ", ")))
			}
		case "depends_on":
			if sc.DependsOn, err = dependsOf(v); err != nil {
				return sc, nil, fmt.Errorf("depends_on: %w", err)
			}
		case "build", "image", "expose":
			// build and image are read below; expose only documents a
			// port (the network namespace is shared)
		case "command", "entrypoint", "environment", "working_dir", "user", "healthcheck":
			if main && (k == "command" || k == "entrypoint") {
				continue // Harbor's keep-alive: the agent is run in the container instead
			}
			if main {
				warn(k, "the agent's service runs the task's image with the agent's command, environment and user")
				continue
			}
			if v, err = interpolate(v); err != nil {
				return sc, nil, fmt.Errorf("%s: %w", k, err)
			}
			switch k {
			case "command":
				sc.Command, err = commandOf(v)
			case "entrypoint":
				sc.Entrypoint, err = commandOf(v)
			case "environment":
				sc.Env, err = environmentOf(v)
			case "working_dir":
				sc.WorkingDir, err = absString(v)
			case "user":
				sc.User, err = userOf(v)
			case "healthcheck":
				sc.Healthcheck, err = healthcheckOf(v)
			}
			if err != nil {
				return sc, nil, fmt.Errorf("%s: %w", k, err)
			}
		default:
			reason, ok := ignoredKeys[k]
			if !ok && strings.HasPrefix(k, "x-") {
				reason = ignoredKeys["x-*"]
			} else if !ok {
				reason = "not known to authbench"
			}
			warn(k, reason)
		}
	}
	if main {
		return sc, warns, nil
	}
	if err := sidecarImage(&sc, svc); err != nil {
		return sc, nil, err
	}
	return sc, warns, nil
}

// sidecarImage reads a sidecar's image: and build: (interpolated), one of
// which it needs.
func sidecarImage(sc *Sidecar, svc map[string]any) error {
	var err error
	if img, ok := svc["image"]; ok {
		if img, err = interpolate(img); err != nil {
			return fmt.Errorf("image: %w", err)
		}
		s, isStr := img.(string)
		if !isStr || strings.TrimSpace(s) == "" || strings.ContainsAny(s, " \t\n") {
			return errors.New("image: want an image reference")
		}
		sc.Image = s
	}
	if svc["build"] != nil {
		build, err := interpolate(svc["build"])
		if err != nil {
			return fmt.Errorf("build: %w", err)
		}
		if sc.Context, sc.Dockerfile, err = buildOf(build); err != nil {
			return err
		}
	} else if sc.Image == "" {
		return errors.New("needs build or image")
	}
	return nil
}

// refused reports whether a refused key's value asks for what is refused
// (privileged: false, an empty list, pid: "" ask for nothing).
func refused(k string, v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	}
	return true
}

// topVolumes reads the top-level volumes: names, each with no options,
// or a driver of "local" without options (external and other drivers
// warn: the volume is made empty for the run).
func topVolumes(v any, warns *[]ComposeWarning) ([]string, error) {
	m, ok := v.(map[string]any)
	if !ok {
		if v == nil {
			return nil, nil
		}
		return nil, errors.New("want a mapping of volume names")
	}
	var out []string
	for _, n := range sortedKeys(m) {
		if !validVolumeName(n) {
			return nil, fmt.Errorf("%q is not a valid volume name", n)
		}
		out = append(out, n)
		opts, _ := m[n].(map[string]any)
		for _, k := range sortedKeys(opts) {
			switch k {
			case "driver":
				if d, _ := opts[k].(string); d != "local" {
					return nil, fmt.Errorf("%s: driver %v is not supported", n, opts[k])
				}
			case "driver_opts":
				return nil, fmt.Errorf("%s: driver_opts are not supported", n)
			default:
				*warns = append(*warns, ComposeWarning{Key: "volumes." + n + "." + k, Reason: "every volume is a fresh directory of the run"})
			}
		}
	}
	return out, nil
}

// volumesOf reads a service's volumes, short ("name:/path[:ro]") or long
// ({type: volume, source, target, read_only}) form; host paths (bind
// mounts) are returned apart.
func volumesOf(v any) (mounts []VolumeMount, hostPaths []string, err error) {
	list, ok := v.([]any)
	if !ok {
		return nil, nil, errors.New("want a list")
	}
	for _, e := range list {
		var m VolumeMount
		var src, typ string
		switch x := e.(type) {
		case string:
			parts := strings.Split(x, ":")
			if len(parts) < 2 || len(parts) > 3 {
				return nil, nil, fmt.Errorf("%q: want SOURCE:TARGET[:MODE] (an anonymous volume is not supported)", x)
			}
			src, m.Target = parts[0], parts[1]
			if len(parts) == 3 {
				for _, o := range strings.Split(parts[2], ",") {
					switch o {
					case "ro":
						m.ReadOnly = true
					case "rw", "z", "Z", "nocopy":
					default:
						return nil, nil, fmt.Errorf("%q: mode %q is not supported", x, o)
					}
				}
			}
		case map[string]any:
			for _, k := range sortedKeys(x) {
				if k != "type" && k != "source" && k != "target" && k != "read_only" && k != "volume" {
					return nil, nil, fmt.Errorf("%q is not supported in a volume", k)
				}
			}
			typ, _ = x["type"].(string)
			src, _ = x["source"].(string)
			m.Target, _ = x["target"].(string)
			m.ReadOnly, _ = x["read_only"].(bool)
			if typ != "volume" && typ != "bind" {
				return nil, nil, fmt.Errorf("type %q is not supported (volume or bind)", typ)
			}
		default:
			return nil, nil, fmt.Errorf("want a string or a mapping, got %v", e)
		}
		if typ == "bind" || strings.HasPrefix(src, ".") || strings.HasPrefix(src, "/") || strings.HasPrefix(src, "~") || strings.Contains(src, "$") {
			hostPaths = append(hostPaths, src) // never mounted: its target does not matter
			continue
		}
		if !path.IsAbs(m.Target) || path.Clean(m.Target) == "/" {
			return nil, nil, fmt.Errorf("target %q: want an absolute path below /", m.Target)
		}
		m.Target = path.Clean(m.Target)
		if !validVolumeName(src) {
			return nil, nil, fmt.Errorf("%q is not a valid volume name", src)
		}
		m.Volume = src
		mounts = append(mounts, m)
	}
	return mounts, hostPaths, nil
}

// dependsOf reads depends_on as a list of names (service_started) or a
// mapping of name to {condition}.
func dependsOf(v any) ([]Dependency, error) {
	var out []Dependency
	switch d := v.(type) {
	case []any:
		for _, e := range d {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("want service names, got %v", e)
			}
			out = append(out, Dependency{Service: s, Condition: ServiceStarted})
		}
	case map[string]any:
		for _, n := range sortedKeys(d) {
			dep := Dependency{Service: n, Condition: ServiceStarted}
			if opts, ok := d[n].(map[string]any); ok {
				for _, k := range sortedKeys(opts) {
					switch k {
					case "condition":
						dep.Condition, _ = opts[k].(string)
					case "required", "restart":
					default:
						return nil, fmt.Errorf("%s: %q is not supported", n, k)
					}
				}
			} else if d[n] != nil {
				return nil, fmt.Errorf("%s: want {condition: ...}", n)
			}
			switch dep.Condition {
			case ServiceStarted, ServiceHealthy, ServiceCompletedSuccessfully:
			default:
				return nil, fmt.Errorf("%s: condition %q is not one of %s, %s, %s", n, dep.Condition, ServiceStarted, ServiceHealthy, ServiceCompletedSuccessfully)
			}
			out = append(out, dep)
		}
	default:
		return nil, errors.New("want a list or a mapping")
	}
	return out, nil
}

// healthcheckOf reads a healthcheck; nil when there is none or it is
// disabled (disable: true, or test NONE).
func healthcheckOf(v any) (*Healthcheck, error) {
	if v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("want a mapping")
	}
	hc := &Healthcheck{Interval: DefaultHealthInterval, Timeout: DefaultHealthTimeout, Retries: DefaultHealthRetries}
	disabled, none := false, false
	for _, k := range sortedKeys(m) {
		var err error
		switch k {
		case "test":
			hc.Test, none, err = healthTest(m[k])
		case "interval":
			hc.Interval, err = durationOf(m[k])
		case "timeout":
			hc.Timeout, err = durationOf(m[k])
		case "start_period":
			hc.StartPeriod, err = durationOf(m[k])
		case "start_interval":
			_, err = durationOf(m[k]) // probes are frequent during the start period anyway
		case "retries":
			n, ok := m[k].(int)
			if !ok || n < 1 {
				err = errors.New("want a positive number")
			}
			hc.Retries = n
		case "disable":
			disabled, _ = m[k].(bool)
		default:
			err = errors.New("not supported")
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
	}
	if disabled || none {
		return nil, nil
	}
	if len(hc.Test) == 0 {
		return nil, errors.New("test: missing")
	}
	if hc.Interval <= 0 || hc.Timeout <= 0 {
		return nil, errors.New("interval and timeout must be positive")
	}
	return hc, nil
}

// healthTest reads a test: ["CMD", argv...], ["CMD-SHELL", command],
// ["NONE"] (disabled) or a string (CMD-SHELL).
func healthTest(v any) (argv []string, disabled bool, err error) {
	switch t := v.(type) {
	case string:
		if strings.TrimSpace(t) == "" {
			return nil, false, errors.New("empty")
		}
		return []string{"/bin/sh", "-c", t}, false, nil
	case []any:
		words, err := commandOf(t)
		if err != nil {
			return nil, false, err
		}
		if len(words) == 0 {
			return nil, false, errors.New("empty")
		}
		switch words[0] {
		case "NONE":
			return nil, true, nil
		case "CMD":
			if len(words) < 2 {
				return nil, false, errors.New("CMD needs a command")
			}
			return words[1:], false, nil
		case "CMD-SHELL":
			if len(words) != 2 {
				return nil, false, errors.New("CMD-SHELL takes one command string")
			}
			return []string{"/bin/sh", "-c", words[1]}, false, nil
		}
		return nil, false, fmt.Errorf("%q: want CMD, CMD-SHELL or NONE first", words[0])
	}
	return nil, false, errors.New("want a string or a list")
}

// durationOf reads a compose duration ("10s", "1m30s", "500ms").
func durationOf(v any) (time.Duration, error) {
	s, ok := v.(string)
	if !ok {
		return 0, fmt.Errorf("want a duration such as \"10s\", got %v", v)
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("want a duration such as \"10s\", got %q", s)
	}
	return d, nil
}

// startOrder orders the sidecars so that each starts after what it
// depends on (by name where free); a cycle is an error.
func startOrder(byName map[string]Sidecar) ([]Sidecar, error) {
	var out []Sidecar
	state := map[string]int{} // 1 visiting, 2 done
	var visit func(n string, chain []string) error
	visit = func(n string, chain []string) error {
		switch state[n] {
		case 1:
			return fmt.Errorf("depends_on cycle: %s", strings.Join(append(chain, n), " → "))
		case 2:
			return nil
		}
		state[n] = 1
		for _, d := range byName[n].DependsOn {
			if err := visit(d.Service, append(chain, n)); err != nil {
				return err
			}
		}
		state[n] = 2
		out = append(out, byName[n])
		return nil
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := visit(n, nil); err != nil {
			return nil, err
		}
	}
	return out, nil
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

// environmentOf reads `KEY: value` or `- KEY=value` (a bare `- KEY`, or
// `KEY:` with no value, takes nothing from the host: it is left out).
func environmentOf(v any) ([]string, error) {
	switch e := v.(type) {
	case nil:
		return nil, nil
	case map[string]any:
		out := make([]string, 0, len(e))
		for k, val := range e {
			if val == nil {
				continue
			}
			out = append(out, fmt.Sprintf("%s=%v", k, val))
		}
		sort.Strings(out)
		return out, nil
	case []any:
		var out []string
		for _, a := range e {
			s, ok := a.(string)
			if !ok || s == "" || strings.HasPrefix(s, "=") {
				return nil, fmt.Errorf("want KEY=VALUE, got %v", a)
			}
			if strings.Contains(s, "=") {
				out = append(out, s)
			}
		}
		return out, nil
	}
	return nil, errors.New("want a mapping or a list of KEY=VALUE")
}

func absString(v any) (string, error) {
	s, ok := v.(string)
	if !ok || !path.IsAbs(s) {
		return "", fmt.Errorf("want an absolute path, got %v", v)
	}
	return path.Clean(s), nil
}

// userOf reads user: NAME, UID, NAME:GROUP or UID:GID.
func userOf(v any) (string, error) {
	switch u := v.(type) {
	case int:
		if u < 0 {
			return "", errors.New("negative uid")
		}
		return fmt.Sprint(u), nil
	case string:
		if strings.TrimSpace(u) == "" || strings.ContainsAny(u, " \t\n") {
			return "", fmt.Errorf("want USER[:GROUP], got %q", u)
		}
		return u, nil
	}
	return "", fmt.Errorf("want USER[:GROUP], got %v", v)
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

// validVolumeName is Docker's rule: [a-zA-Z0-9][a-zA-Z0-9_.-]*.
func validVolumeName(n string) bool {
	if n == "" || len(n) > 128 || n[0] == '.' || n[0] == '_' || n[0] == '-' {
		return false
	}
	for _, r := range n {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}
