package env

import (
	"fmt"
	"sort"
	"strings"

	"github.com/authbench/authbench/env/imagemeta"
	"github.com/authbench/authbench/tasks"
)

// BaseMap maps image references a Dockerfile names in FROM to local
// images: NAME=IMAGE. NAME is "repo:tag" (that tag only), "repo" (any
// tag) or "*" (anything not otherwise resolvable). IMAGE "authbench-base"
// means the local base image.
type BaseMap map[string]string

// ParseBaseMap parses --image-map (or --base-map) NAME=IMAGE entries.
func ParseBaseMap(entries []string) (BaseMap, error) {
	m := BaseMap{}
	for _, e := range entries {
		k, v, ok := strings.Cut(e, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" || v == "" || strings.ContainsAny(k+v, " \t") {
			return nil, fmt.Errorf("image map %q: want NAME=IMAGE, e.g. python:3.11-slim=authbench-base", e)
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

// Substitution is one image a run used in place of the one its task
// names: a run record lists every one, so that a reader knows which
// runs did not use the published image.
type Substitution struct {
	// Ref is the image as the Dockerfile or compose file names it.
	Ref string `json:"ref"`
	// Used is what the build used instead.
	Used string `json:"used"`
	// Why names the rule and what the stand-in is.
	Why string `json:"why"`
}

// Substitutions lists the FROMs that did not use the image written.
// Pure.
func Substitutions(froms []imagemeta.ResolvedFrom) []Substitution {
	var out []Substitution
	for _, f := range froms {
		if f.Why == "" {
			continue
		}
		used := f.Image
		if f.Digest != "" && !strings.Contains(used, "@") {
			used = f.Image + "@" + f.Digest
		}
		out = append(out, Substitution{Ref: f.Expanded, Used: used, Why: f.Why})
	}
	return out
}

// ImageLookup is what ResolveFroms may ask of the machine.
type ImageLookup struct {
	// Local reports whether ref is in the builder's storage.
	Local func(ref string) bool
	// Pull, when set, pulls ref from a configured registry and returns
	// the pulled image's name in the builder's storage, its digest and
	// the registry; an error when no registry has it (the resolution
	// goes on to the offline defaults).
	Pull func(ref string) (image, digest, registry string, err error)
	// Family, when set, builds a family whose published base is Ubuntu
	// (BaseFamily.OnUbuntu) on that base pulled from a configured
	// registry, and returns the image, the pulled base's digest and the
	// registry; an error sends the resolution on to the family's Debian
	// stand-in.
	Family func(f BaseFamily) (image, digest, registry string, err error)
}

// UnresolvedError lists the FROMs that name no local image.
type UnresolvedError struct {
	File  string
	Froms []imagemeta.ResolvedFrom
}

func (e *UnresolvedError) Error() string {
	var b strings.Builder
	for _, f := range e.Froms {
		img := f.Written
		if f.Expanded != f.Written {
			img += " (= " + f.Expanded + ")"
		}
		fmt.Fprintf(&b, "%s:%d: FROM %s: no such image here, no registry configured has it, and it has no offline default\n", e.File, f.Line, img)
	}
	name := e.Froms[0].Expanded
	if name == "" {
		name = "NAME"
	}
	fmt.Fprintf(&b, "map it to a local image, e.g. to the base that `authbench env base` builds:\n")
	fmt.Fprintf(&b, "  authbench env build --image-map %s=%s TASK\n", name, BaseShortName)
	fmt.Fprintf(&b, "or for every task, in the config file (/etc/authbench/config.toml or --config):\n")
	fmt.Fprintf(&b, "  [image_map]\n  %q = %q\n", name, BaseShortName)
	fmt.Fprintf(&b, "or name a registry that has it ([env] registries = [\"HOST:PORT\"])\n")
	fmt.Fprintf(&b, "(IMAGE may also be a base family's authbench-<family>-plain-base; families: %s)", strings.Join(FamilyNames(), ", "))
	return b.String()
}

// ResolveFroms decides the image of every FROM of df and returns the
// Dockerfile with each FROM rewritten to it (other lines unchanged, line
// numbers kept). buildArgs override the ARG defaults declared before the
// first FROM; bases gives the tags of the local bases (the default one and
// the families'), which need not be built yet; look asks the builder's
// storage and the registries. An image that resolves nowhere gives an
// *UnresolvedError naming every such FROM.
//
// The order: a stage or scratch; the image map's exact tag or repository
// entry; authbench-base; an image in the builder's storage (other than
// a family's name); a pull from a configured registry; for a family
// whose published base is Ubuntu, that base pulled and the family built
// on it (ImageLookup.Family); a family's name
// (authbench-<family>-plain-base, any tag) as its local base; the
// offline default (OfflineDefault, then a StandIns recipe); the image
// map's "*".
func ResolveFroms(df *tasks.Dockerfile, buildArgs map[string]string, m BaseMap, bases Bases, look ImageLookup) ([]byte, []imagemeta.ResolvedFrom, error) {
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
	var out []imagemeta.ResolvedFrom
	var bad []imagemeta.ResolvedFrom
	for _, f := range froms {
		r := imagemeta.ResolvedFrom{Line: f.Line, Written: f.Image, Expanded: expandVars(f.Image, vars)}
		var err error
		r, err = resolveOne(r, stages, m, bases, look)
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

// resolveOne fills in the image, the rule, the local base and what
// stands in for the image of one FROM (r.Image "": unresolved).
func resolveOne(r imagemeta.ResolvedFrom, stages map[string]bool, m BaseMap, bases Bases, look ImageLookup) (imagemeta.ResolvedFrom, error) {
	img := r.Expanded
	var err error
	switch {
	case img == "":
		return r, nil
	case stages[strings.ToLower(img)]:
		r.Image, r.How = img, "stage"
		return r, nil
	case strings.EqualFold(img, "scratch"):
		r.Image, r.How = img, "scratch"
		return r, nil
	}
	ref := normalizeRef(img)
	family, isFamily := FamilyOf(ref)
	switch target, key, ok := m.lookup(ref); {
	case ok:
		r.Image, r.Base, err = resolveTarget(target, bases, look.Local)
		r.How, r.Why = "image-map "+key, fmt.Sprintf("image map: %s=%s", key, target)
		return r, err // a mapping to nothing is an error, not a reason to look further
	case isBaseRef(ref):
		r.Image, r.Base, err = resolveTarget(BaseShortName, bases, look.Local)
		r.How = "authbench-base"
	case !isFamily && look.Local(img):
		r.Image, r.How = img, "local"
	}
	if err != nil || r.Image != "" {
		return r, err
	}
	if look.Pull != nil {
		if image, digest, registry, perr := look.Pull(img); perr == nil {
			r.Image, r.Digest, r.How = image, digest, "pull "+registry
			r.Why = "pulled from the registry " + registry
			return r, nil
		}
	}
	if isFamily && look.Family != nil && family.OnUbuntu() {
		if image, digest, registry, ferr := look.Family(family); ferr == nil {
			r.Image, r.Digest, r.How = image, digest, "pull "+registry
			r.Why = fmt.Sprintf("%s built here on %s pulled from the registry %s, with the family's packages", family.ImageName(), family.Published, registry)
			return r, nil
		}
	}
	if isFamily {
		r.Image, r.Base, err = resolveTarget(family.ImageName(), bases, look.Local)
		r.How, r.Why = "family "+family.Name, family.StandIn()
		return r, err
	}
	if target, why, ok := OfflineDefault(ref); ok {
		r.Image, r.Base, err = resolveTarget(target, bases, look.Local)
		r.How, r.Why = "default", why
		return r, err
	}
	if si, ok := standInFor(ref); ok {
		r.Image, err = si.Tag(bases)
		r.How, r.StandIn = "default", si.Name
		r.Why = fmt.Sprintf("offline default: no registry has %s; a local stand-in built here: %s", ref, si.Doc)
		return r, err
	}
	if target, key, ok := m.lookupStar(); ok {
		r.Image, r.Base, err = resolveTarget(target, bases, look.Local)
		r.How, r.Why = "image-map "+key, fmt.Sprintf("image map: %s=%s", key, target)
	}
	return r, err
}

// resolveTarget resolves the image a rule names: the default base, a
// family's base, or an image in the builder's storage ("" when none).
func resolveTarget(target string, bases Bases, local func(string) bool) (image, base string, err error) {
	name := ""
	if isBaseRef(target) {
		name = BaseShortName
	} else if f, ok := FamilyOf(normalizeRef(target)); ok {
		name = f.Name
	}
	if name != "" {
		cfg, err := bases.Config(name)
		if err != nil {
			return "", "", err
		}
		return cfg.Tag(), name, nil
	}
	if local(target) {
		return target, "", nil
	}
	return "", "", nil
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
