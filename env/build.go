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

	"github.com/authbench/authbench/tasks"
)

// taskFormat changes whenever BuildTask's output changes.
const taskFormat = 2

// TaskImage is a built task environment, exported to a rootfs directory.
type TaskImage struct {
	Task    string      `json:"task"`
	Key     string      `json:"key"`
	BaseKey string      `json:"base_key"`
	Builder BuilderKind `json:"builder"`
	// Rootfs is the image's root filesystem: the lower layer of each run.
	Rootfs string `json:"rootfs"`
	// Froms says how each FROM was resolved.
	Froms []ResolvedFrom `json:"froms"`
	// Config is the image's Env, WorkingDir, User...
	Config ImageConfig `json:"config"`
	// SharedBytes is how much of Rootfs is hard-linked to the base's
	// identical files instead of stored again.
	SharedBytes  int64     `json:"shared_bytes"`
	BuiltAt      time.Time `json:"built_at"`
	BuildSeconds float64   `json:"build_seconds"`
}

// BuildOptions tune BuildTask.
type BuildOptions struct {
	// Builder runs the build.
	Builder Builder
	// Base is the local base image; it must have been imported into
	// Builder (ImportBase).
	Base *BaseImage
	// BaseMap maps FROM images to local ones.
	BaseMap BaseMap
	// BuildArgs are passed as --build-arg and used to expand FROM lines.
	BuildArgs map[string]string
	// Log receives the builder's output (may be nil).
	Log io.Writer
	// Timeout bounds the build; the task's build_timeout_sec when 0.
	Timeout time.Duration
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
// (Dockerfile after FROM resolution, build context, build args, base,
// builder) is there already; built says whether it did any work.
func BuildTask(ctx context.Context, s Store, t *tasks.Task, o BuildOptions) (img *TaskImage, built bool, err error) {
	if t.Dockerfile == nil || o.Base == nil {
		return nil, false, fmt.Errorf("build task %s: no Dockerfile or no base image", t.Name)
	}
	dockerfile, froms, err := ResolveFroms(t.Dockerfile, o.BuildArgs, o.BaseMap, o.Base.Config.Tag(),
		func(ref string) bool { return o.Builder.Exists(ctx, ref) })
	if err != nil {
		return nil, false, fmt.Errorf("build task %s: %w", t.Name, err)
	}
	ctxHash, err := hashTree(t.ContextDir())
	if err != nil {
		return nil, false, fmt.Errorf("build task %s: hash build context: %w", t.Name, err)
	}
	key := taskKey(o.Builder.Kind, o.Base.Key, dockerfile, o.BuildArgs, ctxHash)
	name := imageName(t.Name)
	unlock, err := s.lock("task-" + name + "-" + key)
	if err != nil {
		return nil, false, fmt.Errorf("build task %s: %w", t.Name, err)
	}
	defer unlock()
	dir := s.TaskDir(name, key)
	img = &TaskImage{}
	if ok, err := readMeta(dir, img); err != nil || ok {
		if err != nil {
			return nil, false, fmt.Errorf("build task %s: %w", t.Name, err)
		}
		img.Froms = froms // the same image, possibly reached by another mapping
		return img, false, nil
	}
	start := time.Now()
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = time.Duration(t.Config.Environment.BuildTimeoutSec * float64(time.Second))
	}
	bctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tmp, err := s.tmpDir("task-" + name + "-")
	if err != nil {
		return nil, false, fmt.Errorf("build task %s: %w", t.Name, err)
	}
	defer os.RemoveAll(tmp)
	df := filepath.Join(tmp, "Dockerfile")
	if err := os.WriteFile(df, dockerfile, 0o644); err != nil {
		return nil, false, fmt.Errorf("build task %s: %w", t.Name, err)
	}
	tag := "localhost/authbench-task/" + name + ":" + key
	spec := BuildSpec{Dockerfile: df, ContextDir: t.ContextDir(), Tag: tag, BuildArgs: o.BuildArgs}
	if _, err := runTool(bctx, o.Log, nil, o.Builder.BuildArgv(spec)...); err != nil {
		if errors.Is(bctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("timed out after %v (build_timeout_sec): %w", timeout, err)
		}
		return nil, false, &BuildError{Task: t.Name, Err: err}
	}
	if o.Builder.Kind == Buildah {
		// The exported rootfs is the cache; vfs copies are large.
		defer runTool(context.Background(), nil, nil, o.Builder.RemoveImageArgv(tag)...)
	}
	inspect, err := runTool(bctx, nil, nil, o.Builder.InspectArgv(tag)...)
	if err != nil {
		return nil, false, fmt.Errorf("build task %s: inspect: %w", t.Name, err)
	}
	cfg, err := ParseInspect(o.Builder.Kind, []byte(inspect))
	if err != nil {
		return nil, false, fmt.Errorf("build task %s: %w", t.Name, err)
	}
	rootfs := filepath.Join(tmp, "rootfs")
	if err := os.Mkdir(rootfs, 0o755); err != nil {
		return nil, false, fmt.Errorf("build task %s: %w", t.Name, err)
	}
	if err := exportImage(bctx, o.Builder, tag, rootfs, o.Log); err != nil {
		return nil, false, fmt.Errorf("build task %s: export rootfs: %w", t.Name, err)
	}
	shared, err := dedupe(o.Base.Rootfs, rootfs)
	if err != nil {
		return nil, false, fmt.Errorf("build task %s: share files with the base: %w", t.Name, err)
	}
	os.Remove(df)
	if err := install(tmp, dir); err != nil {
		return nil, false, fmt.Errorf("build task %s: %w", t.Name, err)
	}
	img = &TaskImage{
		Task: t.Name, Key: key, BaseKey: o.Base.Key, Builder: o.Builder.Kind,
		Rootfs: filepath.Join(dir, "rootfs"), Froms: froms, Config: cfg, SharedBytes: shared,
		BuiltAt: time.Now().UTC(), BuildSeconds: time.Since(start).Seconds(),
	}
	if err := writeMeta(dir, img); err != nil {
		return nil, false, fmt.Errorf("build task %s: %w", t.Name, err)
	}
	return img, true, nil
}

func taskKey(kind BuilderKind, baseKey string, dockerfile []byte, args map[string]string, ctxHash string) string {
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
