package env

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/authbench/authbench/env/imagemeta"
	"github.com/authbench/authbench/tasks"
)

// taskFormat changes whenever BuildTask's output changes.
const taskFormat = 4

// BuildOptions tune BuildTask.
type BuildOptions struct {
	// Builder runs the build.
	Builder Builder
	// Bases says how to make the local bases the Dockerfile's FROMs need
	// (built and imported on demand); the zero value is the defaults.
	Bases Bases
	// Base, when set, is the default base (authbench-base), already built
	// and imported into Builder.
	Base *BaseImage
	// BaseMap maps FROM images to local ones (the image map).
	BaseMap BaseMap
	// Registries are tried, in order, for a FROM image that the image map
	// and the builder's storage do not have, before its offline default.
	Registries []Registry
	// BuildArgs are passed as --build-arg and used to expand FROM lines.
	BuildArgs map[string]string
	// Log receives the builder's output (may be nil).
	Log io.Writer
	// Timeout bounds the build; the task's build_timeout_sec when 0.
	Timeout time.Duration
	// BuildHosts are the hosts (netpolicy allow-list entries) the RUN
	// steps may reach through the build's egress proxy; nil:
	// DefaultBuildHosts and the bases' mirrors (buildHosts).
	BuildHosts []string
}

// BuildError is a failed image build; its message ends with the last
// lines of the builder's output.
type BuildError struct {
	Task string
	Err  error
}

func (e *BuildError) Error() string { return fmt.Sprintf("build task %s: %v", e.Task, e.Err) }
func (e *BuildError) Unwrap() error { return e.Err }

// BuildTask builds the task's environment image from its Dockerfile and
// exports it under the store, unless an image with the same inputs
// (Dockerfile after heredoc translation and FROM resolution, build
// context, build args, bases, builder) is there already; built says
// whether it did any work. The local bases the FROMs name are built and
// imported first when missing. A heredoc the builder cannot run is a
// *tasks.HeredocError; a FROM that resolves nowhere an *UnresolvedError.
func BuildTask(ctx context.Context, s Store, t *tasks.Task, o BuildOptions) (img *imagemeta.TaskImage, built bool, err error) {
	if t.Dockerfile == nil {
		return nil, false, fmt.Errorf("build task %s: no Dockerfile", t.Name)
	}
	tr, err := tasks.TranslateHeredocs(t.Dockerfile, o.BuildArgs)
	if err != nil {
		return nil, false, fmt.Errorf("build task %s: %w", t.Name, err)
	}
	if o.Base != nil && o.Bases.Default.Suite == "" {
		o.Bases.Default = o.Base.Config
	}
	dockerfile, froms, err := resolveTaskFroms(ctx, s, o, tr)
	if err != nil {
		return nil, false, fmt.Errorf("build task %s: %w", t.Name, err)
	}
	bases, last, err := ensureBases(ctx, s, o, froms)
	if err != nil {
		return nil, false, fmt.Errorf("build task %s: %w", t.Name, err)
	}
	key, err := taskBuildKey(ctx, t, o, tr, dockerfile, froms, bases)
	if err != nil {
		return nil, false, fmt.Errorf("build task %s: %w", t.Name, err)
	}
	name := imageName(t.Name)
	unlock, err := s.lock("task-" + name + "-" + key)
	if err != nil {
		return nil, false, fmt.Errorf("build task %s: %w", t.Name, err)
	}
	defer unlock()
	dir := s.TaskDir(name, key)
	img = &imagemeta.TaskImage{}
	if ok, err := readMeta(dir, img); err != nil || ok {
		if err != nil {
			return nil, false, fmt.Errorf("build task %s: %w", t.Name, err)
		}
		img.Froms = froms // the same image, possibly reached by another mapping
		return img, false, nil
	}
	start := time.Now()
	tmp, err := s.tmpDir("task-" + name + "-")
	if err != nil {
		return nil, false, fmt.Errorf("build task %s: %w", t.Name, err)
	}
	defer os.RemoveAll(tmp)
	tag := "localhost/authbench-task/" + name + ":" + key
	cfg, shared, err := buildAndExport(ctx, s, o, t, tr, dockerfile, tag, tmp, last)
	if err != nil {
		return nil, false, err
	}
	if err := install(tmp, dir); err != nil {
		return nil, false, fmt.Errorf("build task %s: %w", t.Name, err)
	}
	baseKey := ""
	if last != nil {
		baseKey = last.Key
	}
	img = &imagemeta.TaskImage{
		Task: t.Name, Key: key, BaseKey: baseKey, Builder: o.Builder.Kind,
		Rootfs: filepath.Join(dir, "rootfs"), Froms: froms, Config: cfg, SharedBytes: shared,
		BuiltAt: time.Now().UTC(), BuildSeconds: time.Since(start).Seconds(),
	}
	if err := writeMeta(dir, img); err != nil {
		return nil, false, fmt.Errorf("build task %s: %w", t.Name, err)
	}
	return img, true, nil
}

// resolveTaskFroms resolves the FROM lines of a task's translated
// Dockerfile (pulls, base families, stand-ins made on demand) and
// returns the Dockerfile the build runs.
func resolveTaskFroms(ctx context.Context, s Store, o BuildOptions, tr *tasks.Translated) ([]byte, []imagemeta.ResolvedFrom, error) {
	look := ImageLookup{Local: localLookup(ctx, o.Builder)}
	if len(o.Registries) > 0 {
		p := Puller{Builder: o.Builder, Registries: o.Registries, Log: o.Log}
		look.Pull = func(ref string) (string, string, string, error) { return p.Pull(ctx, ref) }
		look.Family = func(f BaseFamily) (string, string, string, error) {
			image, digest, registry, err := buildFamilyOnPulled(ctx, s, o, p, f)
			if err != nil && o.Log != nil {
				fmt.Fprintf(o.Log, "base family %s on %s: %v; using its Debian stand-in\n", f.Name, f.Published, err)
			}
			return image, digest, registry, err
		}
	}
	dockerfile, froms, err := ResolveFroms(tr.Dockerfile, o.BuildArgs, o.BaseMap, o.Bases, look)
	if err != nil {
		return nil, nil, err
	}
	for _, f := range froms {
		if f.StandIn != "" {
			if err := ensureStandIn(ctx, s, o, f.StandIn, f.Image); err != nil {
				return nil, nil, fmt.Errorf("stand-in for %s: %w", f.Expanded, err)
			}
		}
	}
	return dockerfile, froms, nil
}

// taskBuildKey is the cache key of a task image: the builder, the bases,
// what each FROM name meant at this build (a pull's digest, a local
// image's ID: a name may come to mean other content), the Dockerfile,
// the build args and the build context.
func taskBuildKey(ctx context.Context, t *tasks.Task, o BuildOptions, tr *tasks.Translated, dockerfile []byte, froms []imagemeta.ResolvedFrom, bases []*BaseImage) (string, error) {
	ctxHash, err := hashTree(t.ContextDir())
	if err != nil {
		return "", fmt.Errorf("hash build context: %w", err)
	}
	ctxHash += hashFiles(tr.Files)
	var baseKeys []string
	for _, b := range bases {
		baseKeys = append(baseKeys, b.Key)
	}
	if err := recordLocalIDs(ctx, o.Builder, froms); err != nil {
		return "", err
	}
	for _, f := range froms {
		if f.Digest != "" {
			baseKeys = append(baseKeys, f.Digest)
		}
		if f.ID != "" {
			baseKeys = append(baseKeys, f.ID)
		}
	}
	return taskKey(o.Builder.Kind, strings.Join(baseKeys, ","), dockerfile, o.BuildArgs, ctxHash), nil
}

// buildAndExport builds dockerfile as image tag (within the task's build
// timeout) and exports its root filesystem into tmp/rootfs, sharing
// files with the base last; it returns the image's config and the bytes
// shared.
func buildAndExport(ctx context.Context, s Store, o BuildOptions, t *tasks.Task, tr *tasks.Translated, dockerfile []byte, tag, tmp string, last *BaseImage) (imagemeta.ImageConfig, int64, error) {
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = time.Duration(t.Config.Environment.BuildTimeoutSec * float64(time.Second))
	}
	bctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	fail := func(err error) (imagemeta.ImageConfig, int64, error) {
		return imagemeta.ImageConfig{}, 0, fmt.Errorf("build task %s: %w", t.Name, err)
	}
	df := filepath.Join(tmp, "Dockerfile")
	if err := os.WriteFile(df, dockerfile, 0o644); err != nil {
		return fail(err)
	}
	defer os.Remove(df)
	contextDir := t.ContextDir()
	if len(tr.Files) > 0 {
		contextDir = filepath.Join(tmp, "context")
		if err := heredocContext(bctx, t.ContextDir(), contextDir, tr.Files); err != nil {
			return fail(fmt.Errorf("build context with heredoc files: %w", err))
		}
		defer os.RemoveAll(contextDir)
	}
	spec := BuildSpec{Dockerfile: df, ContextDir: contextDir, Tag: tag, BuildArgs: o.BuildArgs}
	if err := runBuild(bctx, s, o, spec); err != nil {
		if errors.Is(bctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("timed out after %v (build_timeout_sec): %w", timeout, err)
		}
		return imagemeta.ImageConfig{}, 0, &BuildError{Task: t.Name, Err: err}
	}
	if o.Builder.Kind == imagemeta.Buildah {
		// The exported rootfs is the cache; vfs copies are large.
		defer runTool(context.Background(), nil, nil, o.Builder.RemoveImageArgv(tag)...)
	}
	inspect, err := runTool(bctx, nil, nil, o.Builder.InspectArgv(tag)...)
	if err != nil {
		return fail(fmt.Errorf("inspect: %w", err))
	}
	cfg, err := ParseInspect(o.Builder.Kind, []byte(inspect))
	if err != nil {
		return fail(err)
	}
	rootfs := filepath.Join(tmp, "rootfs")
	if err := os.Mkdir(rootfs, 0o755); err != nil {
		return fail(err)
	}
	if err := exportTask(bctx, o, tag, []byte(inspect), last, rootfs); err != nil {
		return fail(fmt.Errorf("export rootfs: %w", err))
	}
	var shared int64
	if last != nil {
		if shared, err = dedupe(last.Rootfs, rootfs); err != nil {
			return fail(fmt.Errorf("share files with the base: %w", err))
		}
	}
	return cfg, shared, nil
}

// exportTask writes the built image tag's root filesystem into rootfs:
// with buildah's overlay storage and a local base under the final stage,
// as the base's files plus the task's layers (exportOverBase), else (or
// when that fails) as a copy of the whole image.
func exportTask(ctx context.Context, o BuildOptions, tag string, inspect []byte, base *BaseImage, rootfs string) error {
	if o.Builder.Kind == imagemeta.Buildah && o.Builder.driver() == Overlay && base != nil {
		err := exportOverBase(ctx, o.Builder, tag, inspect, base, rootfs, o.Log)
		if err == nil || ctx.Err() != nil {
			return err
		}
		if o.Log != nil {
			fmt.Fprintf(o.Log, "cannot read %s's layers over its base (%v): copying the whole rootfs instead\n", tag, err)
		}
		if err := emptyDir(rootfs); err != nil {
			return err
		}
	}
	return exportImage(ctx, o.Builder, tag, rootfs, o.Log)
}

// ensureBases builds and imports every local base the FROMs need, in
// order; last is the base of the final stage's FROM (nil when that is
// none), which the image shares files with.
func ensureBases(ctx context.Context, s Store, o BuildOptions, froms []imagemeta.ResolvedFrom) (all []*BaseImage, last *BaseImage, err error) {
	done := map[string]*BaseImage{}
	for _, f := range froms {
		if f.Base == "" {
			last = nil
			continue
		}
		b, ok := done[f.Base]
		if !ok {
			if b, err = ensureBase(ctx, s, o, f.Base); err != nil {
				return nil, nil, err
			}
			done[f.Base] = b
			all = append(all, b)
		}
		last = b
	}
	return all, last, nil
}

// ensureBase builds (when missing) and imports the base called name.
func ensureBase(ctx context.Context, s Store, o BuildOptions, name string) (*BaseImage, error) {
	cfg, err := o.Bases.Config(name)
	if err != nil {
		return nil, err
	}
	if o.Base != nil && name == BaseShortName && o.Base.Key == cfg.Key() {
		return o.Base, nil
	}
	b, built, err := BuildBase(ctx, s, cfg, o.Log)
	if err != nil {
		return nil, fmt.Errorf("base %s: %w", name, err)
	}
	if built && o.Log != nil {
		fmt.Fprintf(o.Log, "built base %s (%s %s) in %.1fs\n", name, cfg.Suite, b.Key, b.BuildSeconds)
	}
	if _, err := ImportBase(ctx, s, o.Builder, b, o.Log); err != nil {
		return nil, fmt.Errorf("base %s: %w", name, err)
	}
	return b, nil
}

// heredocContext makes dst a copy of the build context src plus the
// generated heredoc files, which a .dockerignore cannot exclude.
func heredocContext(ctx context.Context, src, dst string, files map[string]string) error {
	if err := os.Mkdir(dst, 0o755); err != nil {
		return err
	}
	if _, err := runTool(ctx, nil, nil, "cp", "-a", src+"/.", dst+"/"); err != nil {
		return err
	}
	if err := os.RemoveAll(filepath.Join(dst, tasks.HeredocDir)); err != nil {
		return err
	}
	for rel, content := range files {
		p := filepath.Join(dst, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
		if err := os.Chmod(p, 0o644); err != nil { // whatever the umask
			return err
		}
	}
	ignore := filepath.Join(dst, ".dockerignore")
	if data, err := os.ReadFile(ignore); err == nil {
		data = append(data, []byte("\n!"+tasks.HeredocDir+"\n!"+tasks.HeredocDir+"/**\n")...)
		return os.WriteFile(ignore, data, 0o644)
	}
	return nil
}

// hashFiles hashes the generated context files ("" when none).
func hashFiles(files map[string]string) string {
	if len(files) == 0 {
		return ""
	}
	keys := make([]string, 0, len(files))
	for k := range files {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	h := sha256.New()
	for _, k := range keys {
		fmt.Fprintf(h, "%q %d\n%s", k, len(files[k]), files[k])
	}
	return "+" + hex.EncodeToString(h.Sum(nil))
}

func taskKey(kind imagemeta.BuilderKind, baseKey string, dockerfile []byte, args map[string]string, ctxHash string) string {
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	h := sha256.New()
	fmt.Fprintf(h, "format %d\nbuilder %s\nbase %s\ncontext %s\n", taskFormat, kind, baseKey, ctxHash)
	for _, k := range keys {
		fmt.Fprintf(h, "arg %q=%q\n", k, args[k])
	}
	h.Write(dockerfile)
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// hashTree hashes every entry below dir: path, type, mode and content
// (or link target).
func hashTree(dir string) (string, error) {
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%q %v\n", rel, info.Mode())
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "-> %q\n", target)
		case info.Mode().IsRegular():
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			_, err = io.Copy(h, f)
			f.Close()
			if err != nil {
				return err
			}
		}
		return nil
	})
	return hex.EncodeToString(h.Sum(nil)), err
}

var badNameChars = regexp.MustCompile(`[^a-z0-9._-]+`)

// imageName turns a task name into a valid image and directory name.
func imageName(task string) string {
	n := strings.Trim(badNameChars.ReplaceAllString(strings.ToLower(task), "-"), "-._")
	if n == "" {
		n = "task"
	}
	return n
}
