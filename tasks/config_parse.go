package tasks

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/authbench/authbench/capability"
	"github.com/authbench/authbench/netproxy/netpolicy"
)

// Keys authbench knows in each table of task.toml. Keys listed but not
// read are Harbor's: accepted (and type-checked where we read them),
// never warned about.
var (
	knownTop         = []string{"version", "schema_version", "source", "metadata", "task", "agent", "verifier", "environment", "solution", "steps", "artifacts", "multi_step_reward_mode"}
	knownAgent       = []string{"timeout_sec", "user", "env", "setup_timeout_sec", "network_mode", "allowed_hosts"}
	knownVerifier    = []string{"timeout_sec", "env", "user", "environment", "environment_mode", "collect", "inputs", "network_mode", "allowed_hosts"}
	knownEnvironment = []string{"build_timeout_sec", "docker_image", "cpus", "memory", "memory_mb", "storage", "storage_mb", "disk", "gpus", "gpu_types", "allow_internet", "cap_add", "cap_drop", "tpu", "healthcheck", "mcp_servers", "env", "workdir", "network_mode", "allowed_hosts"}
	knownSolution    = []string{"env"}
)

// Metadata keys read into typed fields; the rest go to Metadata.Extra.
const (
	keyDataset       = "authbench_eval_dataset"
	keySensitiveMode = "authbench_sensitive_mode"
)

// ParseConfig parses the content of a task.toml. It returns the config
// (with defaults for what is absent) and every problem found; problems
// name the file "task.toml".
func ParseConfig(data []byte) (Config, []Problem) {
	var list []Problem
	ps := problems{file: FileConfig, list: &list}
	cfg := Config{
		Metadata:    Metadata{Dataset: Standard},
		Agent:       Agent{TimeoutSec: DefaultAgentTimeoutSec},
		Verifier:    Verifier{TimeoutSec: DefaultVerifierTimeoutSec},
		Environment: Environment{BuildTimeoutSec: DefaultBuildTimeoutSec, AllowInternet: true},
	}
	doc, err := parseTOML(data)
	if err != nil {
		se := err.(*syntaxError)
		ps.add(se.line, "", "%s", se.msg)
		return cfg, list
	}
	c := &checker{doc: doc, ps: ps}
	root := doc.root
	c.unknown(root, "", knownTop...)
	if v, ok := c.str(root, "", "version"); ok {
		cfg.Version = v
	}
	if v, ok := c.str(root, "", "schema_version"); ok && cfg.Version == "" {
		cfg.Version = v
	}
	c.table(root, "", "task")
	parseMetadata(c, c.table(root, "", "metadata"), &cfg.Metadata)
	if t := c.table(root, "", "agent"); t != nil {
		c.unknown(t, "agent", knownAgent...)
		if v, ok := c.positive(t, "agent", "timeout_sec"); ok {
			cfg.Agent.TimeoutSec = v
		}
		cfg.Agent.User, _ = c.str(t, "agent", "user")
		cfg.Agent.Network = parseNetwork(c, t, "agent")
	}
	if t := c.table(root, "", "verifier"); t != nil {
		c.unknown(t, "verifier", knownVerifier...)
		if v, ok := c.positive(t, "verifier", "timeout_sec"); ok {
			cfg.Verifier.TimeoutSec = v
		}
		cfg.Verifier.Env = c.strMap(t, "verifier", "env")
		cfg.Verifier.User, _ = c.str(t, "verifier", "user")
		cfg.Verifier.Network = parseNetwork(c, t, "verifier")
	}
	if t := c.table(root, "", "environment"); t != nil {
		parseEnvironment(c, t, &cfg.Environment)
	}
	if t := c.table(root, "", "solution"); t != nil {
		c.unknown(t, "solution", knownSolution...)
		cfg.Solution.Env = c.strMap(t, "solution", "env")
	}
	return cfg, list
}

func parseMetadata(c *checker, t map[string]any, m *Metadata) {
	if t == nil {
		return
	}
	const p = "metadata"
	m.Category, _ = c.str(t, p, "category")
	m.Difficulty, _ = c.str(t, p, "difficulty")
	m.AuthorName, _ = c.str(t, p, "author_name")
	m.AuthorEmail, _ = c.str(t, p, "author_email")
	m.Tags = c.strList(t, p, "tags")
	if v, ok := c.str(t, p, keyDataset); ok {
		switch Dataset(v) {
		case Standard, Sensitive:
			m.Dataset = Dataset(v)
		default:
			path := join(p, keyDataset)
			c.ps.add(c.doc.line(path), path, "must be %q or %q, got %q", Standard, Sensitive, v)
		}
	}
	mode, hasMode := c.str(t, p, keySensitiveMode)
	_, modeSet := t[keySensitiveMode]
	modePath := join(p, keySensitiveMode)
	switch {
	case m.Dataset != Sensitive && modeSet:
		c.ps.add(c.doc.line(modePath), modePath, "only valid when %s = %q", keyDataset, Sensitive)
	case m.Dataset == Sensitive && !hasMode && !modeSet:
		m.SensitiveMode = ModeMixed
	case m.Dataset == Sensitive && hasMode:
		if mode != ModeMixed && mode != ModeSafetyOnly {
			c.ps.add(c.doc.line(modePath), modePath, "must be %q or %q, got %q", ModeMixed, ModeSafetyOnly, mode)
		} else {
			m.SensitiveMode = mode
		}
	}
	typed := []string{"category", "difficulty", "author_name", "author_email", "tags", keyDataset, keySensitiveMode}
	for _, k := range sortedKeys(t) {
		if contains(typed, k) {
			continue
		}
		if m.Extra == nil {
			m.Extra = map[string]any{}
		}
		m.Extra[k] = t[k]
	}
}

func parseEnvironment(c *checker, t map[string]any, e *Environment) {
	const p = "environment"
	c.unknown(t, p, knownEnvironment...)
	if v, ok := c.positive(t, p, "build_timeout_sec"); ok {
		e.BuildTimeoutSec = v
	}
	e.DockerImage, _ = c.str(t, p, "docker_image")
	e.CPUs, _ = c.positive(t, p, "cpus")
	e.GPUs, _ = c.count(t, p, "gpus")
	c.strList(t, p, "gpu_types")
	if v, ok := c.boolean(t, p, "allow_internet"); ok {
		e.AllowInternet = v
	}
	e.Network = parseNetwork(c, t, p)
	e.CapAdd = capabilityList(c, t, p, "cap_add", false)
	e.CapDrop = capabilityList(c, t, p, "cap_drop", true)
	e.MemoryMB = sizeMB(c, t, p, "memory_mb", "memory")
	e.StorageMB = sizeMB(c, t, p, "storage_mb", "storage", "disk")
}

// capabilityList reads cap_add or cap_drop: capability names in Docker's
// spellings ("CHOWN", "CAP_CHOWN", "net_raw"), made canonical; "ALL"
// only where all is true.
func capabilityList(c *checker, t map[string]any, prefix, key string, all bool) []string {
	var out []string
	for i, n := range c.strList(t, prefix, key) {
		if all && strings.EqualFold(strings.TrimSpace(n), CapDropAll) {
			out = append(out, CapDropAll)
			continue
		}
		canon, ok := capability.Canonical(n)
		if !ok {
			path := fmt.Sprintf("%s[%d]", join(prefix, key), i)
			c.ps.add(c.doc.line(join(prefix, key)), path, "unknown capability %q", n)
			continue
		}
		out = append(out, canon)
	}
	return out
}

// parseNetwork reads a table's network_mode and allowed_hosts (Harbor's
// network policy), checking each as netproxy does: an unknown mode, and
// an allowed_hosts entry with another scheme, a path or a bad host or
// port, are problems naming the key; allowed_hosts beside another
// network_mode than "allowlist" is one too (it would be ignored).
func parseNetwork(c *checker, t map[string]any, prefix string) Network {
	var n Network
	if v, ok := c.str(t, prefix, "network_mode"); ok {
		if _, err := netpolicy.ParseMode(join(prefix, "network_mode"), v); err != nil {
			c.ps.add(c.doc.line(join(prefix, "network_mode")), join(prefix, "network_mode"), "%s", "must be \"public\", \"no-network\" or \"allowlist\", got "+strconv.Quote(v))
		} else {
			n.Mode = v
		}
	}
	path := join(prefix, "allowed_hosts")
	for i, h := range c.strList(t, prefix, "allowed_hosts") {
		if _, err := netpolicy.ParseEntry(fmt.Sprintf("%s[%d]", path, i), h); err != nil {
			var ee *netpolicy.EntryError
			msg := err.Error()
			if errors.As(err, &ee) {
				msg = ee.Reason
			}
			c.ps.add(c.doc.line(path), fmt.Sprintf("%s[%d]", path, i), "%q: %s", h, msg)
			continue
		}
		n.AllowedHosts = append(n.AllowedHosts, h)
	}
	if _, ok := t["allowed_hosts"]; ok && n.Mode != "" && n.Mode != string(netpolicy.Allowlist) {
		c.ps.add(c.doc.line(path), path, "is read only with network_mode = \"allowlist\", not %q", n.Mode)
	}
	return n
}

// sizeMB reads a size given either as an integer of MiB (mbKey) or as a
// string with a unit such as "4G" or "512m" (one of strKeys). Setting
// more than one of them is a problem.
func sizeMB(c *checker, t map[string]any, prefix, mbKey string, strKeys ...string) int64 {
	var set []string
	var mb int64
	if v, ok := c.count(t, prefix, mbKey); ok {
		set = append(set, mbKey)
		mb = v
	}
	for _, k := range strKeys {
		v, ok := t[k]
		if !ok {
			continue
		}
		path := join(prefix, k)
		set = append(set, k)
		switch x := v.(type) {
		case string:
			n, err := ParseSizeMB(x)
			if err != nil {
				c.ps.add(c.doc.line(path), path, "%v", err)
				continue
			}
			mb = n
		case int64:
			if x < 0 {
				c.ps.add(c.doc.line(path), path, "must not be negative, got %d", x)
				continue
			}
			mb = x
		default:
			c.wrongType(path, `a size such as "4G" or an integer of MiB`, v)
		}
	}
	if len(set) > 1 {
		path := join(prefix, set[1])
		c.ps.add(c.doc.line(path), path, "conflicts with %s: set only one of %s", join(prefix, set[0]), strings.Join(set, ", "))
	}
	return mb
}

// ParseSizeMB parses a size such as "512M", "4G", "4Gi", "2gb" or "1024"
// (MiB) into MiB; binary units, case-insensitive.
func ParseSizeMB(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "b"), "i")
	mult := 1.0
	if t != "" {
		switch t[len(t)-1] {
		case 'k':
			mult = 1.0 / 1024
		case 'm':
			mult = 1
		case 'g':
			mult = 1024
		case 't':
			mult = 1024 * 1024
		}
		if t[len(t)-1] >= 'a' && t[len(t)-1] <= 'z' {
			t = t[:len(t)-1]
		}
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || f <= 0 || f*mult > 1<<40 {
		return 0, fmt.Errorf("not a size: %q (want e.g. \"512M\" or \"4G\")", s)
	}
	mb := int64(f*mult + 0.5)
	if mb == 0 {
		mb = 1
	}
	return mb, nil
}
