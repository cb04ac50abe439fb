package env

import (
	"fmt"
	"sort"
	"strings"

	"github.com/authbench/authbench/tasks"
)

// BaseMap maps image references a Dockerfile names in FROM to local
// images: NAME=IMAGE. NAME is "repo:tag" (that tag only), "repo" (any
// tag) or "*" (anything not otherwise resolvable). IMAGE "authbench-base"
// means the local base image.
type BaseMap map[string]string

// ParseBaseMap parses --base-map NAME=IMAGE entries.
func ParseBaseMap(entries []string) (BaseMap, error) {
	m := BaseMap{}
	for _, e := range entries {
		k, v, ok := strings.Cut(e, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" || v == "" || strings.ContainsAny(k+v, " \t") {
			return nil, fmt.Errorf("base map %q: want NAME=IMAGE, e.g. python:3.11-slim=authbench-base", e)
		}
		m[k] = v
	}
	return m, nil
}

// Merge returns m with over's entries added (over wins).
func (m BaseMap) Merge(over BaseMap) BaseMap {
	out := BaseMap{}
	for k, v := range m {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}

// lookup finds the mapping of a normalised reference: exact tag first,
// then the repository; "*" is lookupStar.
func (m BaseMap) lookup(ref string) (string, string, bool) {
	repo := repoOf(ref)
	var repoKey string
	for _, k := range m.keys() {
		switch {
		case k == "*":
		case hasTagOrDigest(k) && normalizeRef(k) == ref:
			return m[k], k, true
		case !hasTagOrDigest(k) && trimDefaultRegistry(k) == repo:
			repoKey = k
		}
	}
	if repoKey != "" {
		return m[repoKey], repoKey, true
	}
	return "", "", false
}

// lookupStar returns the "*" mapping.
func (m BaseMap) lookupStar() (string, string, bool) {
	v, ok := m["*"]
	return v, "*", ok
}

func (m BaseMap) keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ResolvedFrom says how one FROM was resolved.
type ResolvedFrom struct {
	// Line is the FROM's line in the Dockerfile.
	Line int `json:"line"`
	// Written is the image as written; Expanded after ARG substitution.
	Written  string `json:"written"`
	Expanded string `json:"expanded"`
	// Image is what the build uses ("" when unresolved).
	Image string `json:"image,omitempty"`
	// How names the rule: "stage", "scratch", "authbench-base",
	// "family NAME", "base-map NAME" or "local".
	How string `json:"how,omitempty"`
	// Base is the local base the image is ("authbench-base" or a family
	// name), "" when it is none: the build makes it on demand.
	Base string `json:"base,omitempty"`
}

// UnresolvedError lists the FROMs that name no local image.
type UnresolvedError struct {
	File  string
	Froms []ResolvedFrom
}

func (e *UnresolvedError) Error() string {
	var b strings.Builder
	for _, f := range e.Froms {
		img := f.Written
		if f.Expanded != f.Written {
			img += " (= " + f.Expanded + ")"
		}
		fmt.Fprintf(&b, "%s:%d: FROM %s: no such image here, and nothing can be pulled from a registry\n", e.File, f.Line, img)
	}
	name := e.Froms[0].Expanded
	if name == "" {
		name = "NAME"
	}
	fmt.Fprintf(&b, "map it to a local image, e.g. to the base that `authbench env base` builds:\n")
	fmt.Fprintf(&b, "  authbench env build --base-map %s=%s TASK\n", name, BaseShortName)
	fmt.Fprintf(&b, "or for every task, in the config file (/etc/authbench/config.toml or --config):\n")
	fmt.Fprintf(&b, "  [base_map]\n  %q = %q\n", name, BaseShortName)
	fmt.Fprintf(&b, "(IMAGE may also be a base family's authbench-<family>-plain-base; families: %s)", strings.Join(FamilyNames(), ", "))
	return b.String()
}

// ResolveFroms decides the image of every FROM of df and returns the
// Dockerfile with each FROM rewritten to it (other lines unchanged, line
// numbers kept). buildArgs override the ARG defaults declared before the
// first FROM; bases gives the tags of the local bases (the default one and
// the families'), which need not be built yet; local reports whether a
// reference exists in the builder's storage. An image that resolves
// nowhere gives an *UnresolvedError naming every such FROM.
//
// The order: a stage or scratch; the base map's exact tag or repository
// entry; a family's name (authbench-<family>-plain-base, any tag);
// authbench-base; an image in the builder's storage; the base map's "*".
func ResolveFroms(df *tasks.Dockerfile, buildArgs map[string]string, m BaseMap, bases Bases, local func(string) bool) ([]byte, []ResolvedFrom, error) {
	froms, err := df.Froms()
	if err != nil {
		return nil, nil, err
	}
	vars := map[string]string{}
	for _, kv := range df.GlobalArgs() {
		vars[kv[0]] = kv[1]
	}
	for k, v := range buildArgs {
		vars[k] = v
	}
	lines := append([]string(nil), df.Lines...)
	stages := map[string]bool{}
	var out []ResolvedFrom
	var bad []ResolvedFrom
	for _, f := range froms {
		r := ResolvedFrom{Line: f.Line, Written: f.Image, Expanded: expandVars(f.Image, vars)}
		var err error
		r.Image, r.How, r.Base, err = resolveOne(r.Expanded, stages, m, bases, local)
		if err != nil {
			return nil, nil, fmt.Errorf("%s:%d: %w", tasks.FileDockerfile, f.Line, err)
		}
		if r.Image == "" {
			bad = append(bad, r)
		} else if r.Image != f.Image {
			in := df.Instructions[f.Index]
			parts := append(append([]string{"FROM"}, f.Flags...), r.Image)
			if f.Stage != "" {
				parts = append(parts, "AS", f.Stage)
			}
			lines[in.Line-1] = strings.Join(parts, " ")
			for i := in.Line; i < in.EndLine; i++ {
				lines[i] = ""
			}
		}
		if f.Stage != "" {
			stages[strings.ToLower(f.Stage)] = true
		}
		out = append(out, r)
	}
	if len(bad) > 0 {
		return nil, out, &UnresolvedError{File: tasks.FileDockerfile, Froms: bad}
	}
	return []byte(strings.Join(lines, "\n")), out, nil
}

// resolveOne returns the image, the rule and the local base of one FROM
// image ("" image: unresolved).
func resolveOne(img string, stages map[string]bool, m BaseMap, bases Bases, local func(string) bool) (image, how, base string, err error) {
	switch {
	case img == "":
		return "", "", "", nil
	case stages[strings.ToLower(img)]:
		return img, "stage", "", nil
	case strings.EqualFold(img, "scratch"):
		return img, "scratch", "", nil
	}
	ref := normalizeRef(img)
	if target, key, ok := m.lookup(ref); ok {
		return resolveTarget(target, "base-map "+key, bases, local)
	}
	if f, ok := FamilyOf(ref); ok {
		return resolveTarget(f.ImageName(), "family "+f.Name, bases, local)
	}
	if isBaseRef(ref) {
		return resolveTarget(BaseShortName, "authbench-base", bases, local)
	}
	if local(img) {
		return img, "local", "", nil
	}
	if target, key, ok := m.lookupStar(); ok {
		return resolveTarget(target, "base-map "+key, bases, local)
	}
	return "", "", "", nil
}

// resolveTarget resolves the image a rule names: the default base, a
// family's base, or an image in the builder's storage.
func resolveTarget(target, how string, bases Bases, local func(string) bool) (string, string, string, error) {
	name := ""
	if isBaseRef(target) {
		name = BaseShortName
	} else if f, ok := FamilyOf(normalizeRef(target)); ok {
		name = f.Name
	}
	if name != "" {
		cfg, err := bases.Config(name)
		if err != nil {
			return "", "", "", err
		}
		return cfg.Tag(), how, name, nil
	}
	if local(target) {
		return target, how, "", nil
	}
	return "", "", "", nil
}

// isBaseRef reports whether ref names the local base image, whatever tag.
func isBaseRef(ref string) bool {
	repo := repoOf(normalizeRef(ref))
	return repo == BaseShortName || repo == BaseImageName
}

// normalizeRef drops Docker Hub's implicit registry and "library/" and
// adds ":latest" when there is no tag or digest.
func normalizeRef(ref string) string {
	r := trimDefaultRegistry(ref)
	if !hasTagOrDigest(r) {
		r += ":latest"
	}
	return r
}

func trimDefaultRegistry(ref string) string {
	for _, p := range []string{"docker.io/", "index.docker.io/", "registry-1.docker.io/"} {
		ref = strings.TrimPrefix(ref, p)
	}
	return strings.TrimPrefix(ref, "library/")
}

// hasTagOrDigest reports whether the last path component carries a tag
// or the reference a digest.
func hasTagOrDigest(ref string) bool {
	if strings.Contains(ref, "@") {
		return true
	}
	last := ref[strings.LastIndexByte(ref, '/')+1:]
	return strings.Contains(last, ":")
}

// repoOf strips the tag and digest.
func repoOf(ref string) string {
	if i := strings.IndexByte(ref, '@'); i >= 0 {
		ref = ref[:i]
	}
	slash := strings.LastIndexByte(ref, '/')
	if i := strings.LastIndexByte(ref, ':'); i > slash {
		ref = ref[:i]
	}
	return ref
}

// expandVars substitutes $VAR, ${VAR}, ${VAR:-default} and ${VAR:+alt}
// like the Dockerfile frontend does on FROM lines; unknown variables
// expand to "".
func expandVars(s string, vars map[string]string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) && s[i+1] == '$' {
			b.WriteByte('$')
			i++
			continue
		}
		if c != '$' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		if s[i+1] == '{' {
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				b.WriteString(s[i:])
				break
			}
			b.WriteString(expandBraced(s[i+2:i+end], vars))
			i += end
			continue
		}
		j := i + 1
		for j < len(s) && (s[j] == '_' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || j > i+1 && s[j] >= '0' && s[j] <= '9') {
			j++
		}
		if j == i+1 {
			b.WriteByte(c)
			continue
		}
		b.WriteString(vars[s[i+1:j]])
		i = j - 1
	}
	return b.String()
}

func expandBraced(expr string, vars map[string]string) string {
	if name, def, ok := strings.Cut(expr, ":-"); ok {
		if v := vars[name]; v != "" {
			return v
		}
		return expandVars(def, vars)
	}
	if name, alt, ok := strings.Cut(expr, ":+"); ok {
		if vars[name] != "" {
			return expandVars(alt, vars)
		}
		return ""
	}
	return vars[expr]
}
