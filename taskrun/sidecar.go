package taskrun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.uber.org/zap"

	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/sandbox"
	"github.com/authbench/authbench/tasks"
)

// sidecarDirPrefix prefixes, in Options.Dir, each sidecar's rootfs
// directory ("sidecar-NAME").
const sidecarDirPrefix = "sidecar-"

// runningSidecar is a started sidecar container.
type runningSidecar struct {
	name   string
	rootfs *env.Rootfs
	c      *env.Container
	bundle string
	log    *os.File
}

// startSidecars builds and starts the task's compose sidecars, before
// the agent: the first one's network namespace (private: loopback only)
// is joined by the others, the agent and the verifiers, and every
// service name resolves to the loopback address through /etc/hosts.
func (r *runner) startSidecars(ctx context.Context) error {
	t := r.o.Task
	scs, err := tasks.LoadSidecars(t)
	if err != nil || len(scs) == 0 {
		return err
	}
	if t.Config.Environment.AllowInternet {
		return &tasks.ComposeError{File: "environment/docker-compose.yaml", Reason: "sidecars need a private network: allow_internet must be false"}
	}
	names := []string{tasks.MainService}
	for _, sc := range scs {
		names = append(names, sc.Name)
	}
	if err := writeHosts(r.rootfs.Path, append(names, env.TaskRunConfig(t, r.image).Hostname)); err != nil {
		return err
	}
	for _, sc := range scs {
		if err := r.startSidecar(ctx, sc, names); err != nil {
			return fmt.Errorf("task %s: sidecar %s: %w", t.Name, sc.Name, err)
		}
	}
	return nil
}

func (r *runner) startSidecar(ctx context.Context, sc tasks.Sidecar, names []string) error {
	img, err := r.buildSidecar(ctx, sc)
	if err != nil {
		return err
	}
	rs := &runningSidecar{name: sc.Name}
	r.sidecars = append(r.sidecars, rs) // stopped by stopSidecars whatever happens below
	if rs.rootfs, err = env.NewRootfs(img.Rootfs, filepath.Join(r.o.Dir, sidecarDirPrefix+sc.Name)); err != nil {
		return err
	}
	if err := writeHosts(rs.rootfs.Path, append(names, sc.Name)); err != nil {
		return err
	}
	id, err := resolveIn(rs.rootfs.Path, img.Config.User)
	if err != nil {
		return err
	}
	cfg := env.TaskRunConfig(r.o.Task, img)
	cfg.Rootfs, cfg.Hostname, cfg.NetNSPath = rs.rootfs.Path, sc.Name, r.netns
	cfg.UID, cfg.GID = uint32(id.UID), uint32(id.GID)
	cfg.Env = env.MergeEnv(cfg.Env, sc.Env)
	if cfg.Args = sidecarArgv(sc, img.Config); len(cfg.Args) == 0 {
		return errors.New("no command: the image has no ENTRYPOINT or CMD and the service no command")
	}
	// The service dies with runc (and so with the daemon), as an agent
	// does under sandbox-init.
	cfg.Binary, cfg.Args = r.o.Self, sandbox.DieWithParentArgv(binaryInContainer, cfg.Args)
	spec, err := env.RuntimeSpec(cfg)
	if err != nil {
		return err
	}
	rs.bundle = filepath.Join(r.o.Dir, "bundle-"+sidecarDirPrefix+sc.Name)
	if err := env.WriteBundle(rs.bundle, spec); err != nil {
		return err
	}
	if rs.log, err = os.Create(filepath.Join(r.o.Dir, sidecarDirPrefix+sc.Name+".log")); err != nil {
		return err
	}
	if rs.c, err = r.o.Runc.Start(rs.bundle, r.id+"-"+sc.Name, env.Stdio{Stdout: rs.log, Stderr: rs.log}); err != nil {
		return err
	}
	pid, err := rs.c.Pid(ctx)
	if err != nil {
		return err
	}
	if r.netns == "" {
		r.netns = fmt.Sprintf("/proc/%d/ns/net", pid)
	}
	r.log.Info("sidecar started", zap.String("task", r.o.Task.Name), zap.String("service", sc.Name), zap.Int("pid", pid))
	return nil
}

// sidecarArgv is the service's command line, as compose makes it: an
// entrypoint given by the service drops the image's CMD.
func sidecarArgv(sc tasks.Sidecar, img env.ImageConfig) []string {
	entry, cmd := img.Entrypoint, img.Cmd
	if sc.Entrypoint != nil {
		entry, cmd = sc.Entrypoint, nil
	}
	if sc.Command != nil {
		cmd = sc.Command
	}
	return append(append([]string(nil), entry...), cmd...)
}

// buildSidecar builds the sidecar's image from its own context (copied,
// so that its Dockerfile and files are the build's whole input).
func (r *runner) buildSidecar(ctx context.Context, sc tasks.Sidecar) (*env.TaskImage, error) {
	t := r.o.Task
	tmp, err := os.MkdirTemp(r.o.Dir, "sidecar-build-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	ctxDir := filepath.Join(tmp, tasks.DirEnvironment)
	if err := os.Mkdir(ctxDir, 0o755); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(ctxDir)
	if err != nil {
		return nil, err
	}
	err = copyTree(filepath.Join(t.ContextDir(), filepath.FromSlash(sc.Context)), root, ".", 0, 0)
	root.Close()
	if err != nil {
		return nil, fmt.Errorf("copy build context %s: %w", sc.Context, err)
	}
	dfPath := filepath.Join(ctxDir, filepath.FromSlash(sc.Dockerfile))
	data, err := os.ReadFile(dfPath)
	if err != nil {
		return nil, fmt.Errorf("dockerfile: %w", err)
	}
	df, err := tasks.ParseDockerfile(dfPath, data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", sc.Dockerfile, err)
	}
	st := &tasks.Task{Name: t.Name + "-" + sc.Name, Dir: tmp, Dockerfile: df, Config: t.Config}
	log, err := r.cappedLog(BuildLogFile, "build log", r.logLimit(), os.O_APPEND)
	if err != nil {
		return nil, err
	}
	defer r.closeLog(log)
	// BuildTask builds the bases the sidecar's FROMs need, as for the task.
	img, _, err := env.BuildTask(ctx, r.o.Images, st, env.BuildOptions{Builder: r.o.Builder, BaseMap: r.o.BaseMap, Log: log})
	return img, err
}

// stopSidecars kills and deletes the sidecars and their rootfs.
func (r *runner) stopSidecars() {
	for _, rs := range r.sidecars {
		if rs.c != nil {
			ctx, cancel := context.WithCancel(context.Background())
			cancel() // Wait kills the container at once
			if _, err := rs.c.Wait(ctx); err != nil {
				r.log.Warn("stop sidecar", zap.String("service", rs.name), zap.Error(err))
			}
		}
		if rs.log != nil {
			rs.log.Close()
		}
		if rs.bundle != "" {
			os.RemoveAll(rs.bundle)
		}
		if rs.rootfs != nil {
			if err := rs.rootfs.Close(); err != nil {
				r.log.Error("close sidecar rootfs", zap.String("service", rs.name), zap.Error(err))
			}
		}
	}
	r.sidecars = nil
}

// writeHosts makes rootfs's /etc/hosts resolve names to the loopback
// address (the containers share one network namespace).
func writeHosts(rootfs string, names []string) error {
	root, err := os.OpenRoot(rootfs)
	if err != nil {
		return err
	}
	defer root.Close()
	if err := root.MkdirAll("etc", 0o755); err != nil {
		return err
	}
	_ = root.Remove("etc/hosts") // a link there is replaced, not followed
	data := "127.0.0.1\tlocalhost " + strings.Join(names, " ") + "\n::1\tlocalhost ip6-localhost ip6-loopback\n"
	return root.WriteFile("etc/hosts", []byte(data), 0o644)
}

// resolveIn resolves an image's USER (root when empty) in rootfs.
func resolveIn(rootfs, user string) (Identity, error) {
	if strings.TrimSpace(user) == "" {
		user = "root"
	}
	root, err := os.OpenRoot(rootfs)
	if err != nil {
		return Identity{}, err
	}
	defer root.Close()
	passwd, err := readOptional(root, "etc/passwd")
	if err != nil {
		return Identity{}, err
	}
	group, err := readOptional(root, "etc/group")
	if err != nil {
		return Identity{}, err
	}
	return resolveUser(user, passwd, group)
}
