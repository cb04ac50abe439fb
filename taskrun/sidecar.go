package taskrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/authbench/authbench/env/imagemeta"
	"github.com/authbench/authbench/internal/netns"

	"go.uber.org/zap"
	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/internal/container"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/sandbox"
	"github.com/authbench/authbench/taskrun/internal/runbox"
	"github.com/authbench/authbench/tasks"
)

// sidecarDirPrefix prefixes, in Options.Dir, each sidecar's rootfs
// directory ("sidecar-NAME"); volumeDirPrefix each named volume's
// directory ("volume-NAME").
const (
	sidecarDirPrefix = "sidecar-"
	volumeDirPrefix  = "volume-"
)

// runningSidecar is a started sidecar container.
type runningSidecar struct {
	sc       tasks.Sidecar
	rootfs   *env.Rootfs
	c        *container.Container // nil until started
	id       string
	uid, gid uint32
	cwd      string
	env      []string
	log      *os.File
	// healthy is set once a health probe passed; waited once the
	// container's end was collected.
	healthy bool
	waited  *env.RunResult
}

// composeRun is a run's compose state: its services, named volumes and
// the network namespace they share.
type composeRun struct {
	file     string
	sidecars map[string]*runningSidecar
	// volumes maps a named volume to its directory; filled records that
	// it has been initialised from the first container mounting it.
	volumes map[string]string
	filled  map[string]bool
	// mounted are the volume mounts made on the agent's rootfs, each held
	// open at its root (unmounted through it: no path is resolved again).
	mounted []*os.File
	// agentMounts are the volumes as the agent sees them, whose files
	// the agent may have written (noteVolumeWrites).
	agentMounts []volumeMount
	// netns holds the shared network namespace (netns.New) open for
	// the run's containers.
	netns *os.File
}

// startSidecars starts the task's compose services before the agent, in
// depends_on order, each once what it depends on is started, healthy or
// completed; mounts the named volumes on the agent's rootfs (where the
// verifiers see them too); and waits for what the agent's service
// depends on. The first sidecar's network namespace (private: loopback
// only) is joined by the others, the agent and the verifiers, and every
// service name resolves to the loopback address through /etc/hosts.
func (r *runner) startSidecars(ctx context.Context) error {
	t := r.Options.Task
	cf, err := tasks.LoadCompose(t)
	if err != nil || cf == nil {
		return err
	}
	for _, w := range cf.Warnings {
		r.res.ComposeWarnings = append(r.res.ComposeWarnings, w.String())
	}
	if len(cf.Sidecars) == 0 && len(cf.Main.Volumes) == 0 {
		return nil
	}
	if len(cf.Sidecars) > 0 && (r.AgentNet.Host || r.VerifierNet.Host) {
		// resolveNetwork makes a public phase of a run with services
		// public through the proxy (PublicThroughProxy): never here.
		return &tasks.ComposeError{File: cf.File, Reason: "a phase on the host's network beside services: the run's network was not resolved"}
	}
	cr := &composeRun{file: cf.File, sidecars: map[string]*runningSidecar{}, volumes: map[string]string{}, filled: map[string]bool{}}
	r.compose = cr
	for _, v := range cf.Volumes {
		dir := filepath.Join(r.Options.Dir, volumeDirPrefix+v)
		if err := os.Mkdir(dir, 0o755); err != nil {
			return fmt.Errorf("volume %s: %w", v, err)
		}
		cr.volumes[v] = dir
	}
	names := []string{tasks.MainService}
	if cf.Main.Name != tasks.MainService {
		names = append(names, cf.Main.Name)
	}
	for _, sc := range cf.Sidecars {
		names = append(names, sc.Name)
	}
	if err := writeHosts(r.Rootfs.Path, append(names, env.TaskRunConfig(t, r.Image).Hostname)); err != nil {
		return err
	}
	for _, sc := range cf.Sidecars {
		if err := r.awaitDependencies(ctx, sc.Name, sc.DependsOn); err != nil {
			return err
		}
		if err := r.startSidecar(ctx, sc, names); err != nil {
			return fmt.Errorf("task %s: sidecar %s: %w", t.Name, sc.Name, err)
		}
	}
	for _, m := range cf.Main.Volumes {
		if err := cr.mountOnRootfs(r.Rootfs.Path, m); err != nil {
			return fmt.Errorf("task %s: volume %s at %s: %w", t.Name, m.Volume, m.Target, err)
		}
	}
	return r.awaitDependencies(ctx, cf.Main.Name, cf.Main.DependsOn)
}

func (r *runner) startSidecar(ctx context.Context, sc tasks.Sidecar, names []string) error {
	cr := r.compose
	img, err := r.buildSidecar(ctx, sc)
	if err != nil {
		return err
	}
	r.noteSubstitutions(sc.Name, img)
	rs := &runningSidecar{sc: sc, id: r.ID + "-" + sc.Name}
	cr.sidecars[sc.Name] = rs // stopped by stopSidecars whatever happens below
	if rs.rootfs, err = env.NewRootfs(img.Rootfs, filepath.Join(r.Options.Dir, sidecarDirPrefix+sc.Name)); err != nil {
		return err
	}
	if err := writeHosts(rs.rootfs.Path, append(names, sc.Name)); err != nil {
		return err
	}
	user := img.Config.User
	if sc.User != "" {
		user = sc.User
	}
	id, err := runbox.ResolveIn(rs.rootfs.Path, user)
	if err != nil {
		return err
	}
	if r.NetNS == "" {
		// Made before any service, held open by the run: it outlives
		// a service that completes (even one that exits at once).
		if cr.netns, err = netns.New(); err != nil {
			return fmt.Errorf("network namespace: %w", err)
		}
		r.NetNS = fmt.Sprintf("/proc/%d/fd/%d", os.Getpid(), cr.netns.Fd())
	}
	cfg := env.TaskRunConfig(r.Options.Task, img)
	// A service is on the run's private network whatever the task's
	// allow_internet: a public phase reaches out through the proxy.
	cfg.Rootfs, cfg.Hostname, cfg.NetNSPath, cfg.AllowInternet = rs.rootfs.Path, sc.Name, r.NetNS, false
	cfg.UID, cfg.GID = uint32(id.UID), uint32(id.GID)
	cfg.Env = env.MergeEnv(cfg.Env, sc.Env)
	if sc.WorkingDir != "" {
		cfg.Cwd = sc.WorkingDir
	}
	for _, m := range sc.Volumes {
		dir := cr.volumes[m.Volume]
		if err := cr.fill(m.Volume, rs.rootfs.Path, m.Target); err != nil {
			return fmt.Errorf("volume %s: %w", m.Volume, err)
		}
		cfg.Binds = append(cfg.Binds, env.Bind{Source: dir, Destination: m.Target, ReadOnly: m.ReadOnly})
	}
	rs.uid, rs.gid, rs.cwd, rs.env = cfg.UID, cfg.GID, cfg.Cwd, cfg.Env
	if cfg.Args = sidecarArgv(sc, img.Config); len(cfg.Args) == 0 {
		return errors.New("no command: the image has no ENTRYPOINT or CMD and the service no command")
	}
	// The service dies with runc (and so with the daemon), as an agent
	// does under sandbox-init, and runs under the container seccomp
	// profile (sandbox.SidecarFilter) with the task's bounds
	// (TaskRunConfig): task-controlled code, confined as the task's is.
	cfg.Binary, cfg.Args = r.Options.Self, sandbox.ConfinedArgv(runbox.BinaryInContainer, cfg.Args)
	spec, err := env.RuntimeSpec(cfg)
	if err != nil {
		return err
	}
	if rs.log, err = os.Create(filepath.Join(r.Options.Dir, sidecarDirPrefix+sc.Name+".log")); err != nil {
		return err
	}
	rs.c, err = container.Start(container.Config{
		Runc: r.Options.Runc, ID: rs.id, Bundle: filepath.Join(r.Options.Dir, "bundle-"+sidecarDirPrefix+sc.Name), Spec: spec,
		Stdio: env.Stdio{Stdout: rs.log, Stderr: rs.log},
	})
	if err != nil {
		return err
	}
	pid, err := rs.c.WaitPid(ctx)
	if err != nil {
		return err
	}
	if r.net != nil {
		if err := r.net.origins.addService(sc.Name, pid); err != nil {
			r.Log.Warn("sidecar's connections not placed", zap.String("service", sc.Name), zap.Error(err))
		}
	}
	r.Log.Info("sidecar started", zap.String("task", r.Options.Task.Name), zap.String("service", sc.Name), zap.Int("pid", pid))
	return nil
}

// awaitDependencies waits until each of deps holds: service_started (it
// is, by the start order), service_healthy (its health test passed) or
// service_completed_successfully (it exited 0).
func (r *runner) awaitDependencies(ctx context.Context, service string, deps []tasks.Dependency) error {
	for _, d := range deps {
		rs := r.compose.sidecars[d.Service]
		var err error
		switch d.Condition {
		case tasks.ServiceHealthy:
			err = r.awaitHealthy(ctx, rs)
		case tasks.ServiceCompletedSuccessfully:
			err = r.awaitCompleted(ctx, rs)
		}
		if err != nil {
			return fmt.Errorf("task %s: %s depends on %s (%s): %w", r.Options.Task.Name, service, d.Service, d.Condition, err)
		}
	}
	return nil
}

// healthPoll bounds the time between health probes: runs start as soon
// as a service is healthy, not one interval later. Failures count as
// Docker counts them (retries in a row, after the start period).
const healthPoll = 500 * time.Millisecond

// awaitHealthy runs the service's health test in its container until it
// passes; it fails once the test failed retries times in a row after the
// start period (the time Docker would take: start period + retries ×
// interval), or when the service ends.
func (r *runner) awaitHealthy(ctx context.Context, rs *runningSidecar) error {
	if rs.healthy {
		return nil
	}
	hc := rs.sc.Healthcheck
	start := time.Now()
	deadline := start.Add(hc.StartPeriod + time.Duration(hc.Retries)*hc.Interval)
	poll := min(hc.Interval, healthPoll)
	failures := 0
	for {
		if rs.c.Exited() {
			return fmt.Errorf("it ended before it was healthy (see %s%s.log)", sidecarDirPrefix, rs.sc.Name)
		}
		pctx, cancel := context.WithTimeout(ctx, hc.Timeout)
		code, err := r.Options.Runc.Exec(pctx, rs.id, rs.uid, rs.gid, rs.cwd, rs.env, sandbox.ConfinedArgv(runbox.BinaryInContainer, hc.Test), rs.log)
		cancel()
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		if err == nil && code == 0 {
			rs.healthy = true
			r.Log.Info("sidecar healthy", zap.String("service", rs.sc.Name), zap.Duration("after", time.Since(start)))
			return nil
		}
		if time.Since(start) >= hc.StartPeriod {
			failures++
		}
		if failures >= hc.Retries && time.Now().After(deadline) {
			return fmt.Errorf("unhealthy: its health test failed %d times in a row (last: exit %d, %v)", failures, code, err)
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-time.After(poll):
		}
	}
}

// awaitCompleted waits for the service to end and wants exit status 0.
func (r *runner) awaitCompleted(ctx context.Context, rs *runningSidecar) error {
	if rs.waited == nil {
		select {
		case <-rs.c.Done():
		case <-ctx.Done():
			rs.c.Kill()
		}
		_, err := rs.c.Wait()
		res, _, _ := rs.c.Ended()
		rs.waited = &res
		if err != nil {
			return err
		}
	}
	if rs.waited.TimedOut {
		return errors.New("the run ended before it completed")
	}
	if rs.waited.ExitCode != 0 {
		return fmt.Errorf("it exited %d (see %s%s.log)", rs.waited.ExitCode, sidecarDirPrefix, rs.sc.Name)
	}
	return nil
}

// fill initialises a named volume, the first time a container mounts it,
// as Docker does: with the mode, owner and files of the directory the
// image has at the mount point (none: an empty directory, mode 0755).
func (cr *composeRun) fill(volume, rootfs, target string) error {
	if cr.filled[volume] {
		return nil
	}
	cr.filled[volume] = true
	root, err := os.OpenRoot(rootfs)
	if err != nil {
		return err
	}
	defer root.Close()
	rel := strings.TrimPrefix(filepath.Clean(target), "/")
	st, err := root.Stat(rel)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a directory in the image", target)
	}
	// The copy below walks the host path: no component may be a link.
	for p := rel; p != "." && p != ""; p = filepath.Dir(p) {
		if lst, err := root.Lstat(p); err != nil || lst.Mode()&os.ModeSymlink != 0 {
			return fmt.Errorf("%s: a link in the image's path, not filled from the image", target)
		}
	}
	dst, err := os.OpenRoot(cr.volumes[volume])
	if err != nil {
		return err
	}
	defer dst.Close()
	if err := copyTree(filepath.Join(rootfs, rel), dst, ".", 0, 0); err != nil {
		return err
	}
	sys, ok := st.Sys().(*unix.Stat_t)
	if !ok {
		return nil
	}
	if err := os.Chown(cr.volumes[volume], int(sys.Uid), int(sys.Gid)); err != nil {
		return err
	}
	return os.Chmod(cr.volumes[volume], st.Mode().Perm())
}

// mountOnRootfs bind-mounts a named volume on the agent's rootfs (nosuid,
// nodev), so that the agent and the verifiers, which run in it, see the
// same files. The
// mount point is made and opened inside the rootfs (a link in the image
// cannot lead it outside).
func (cr *composeRun) mountOnRootfs(rootfs string, m tasks.VolumeMount) error {
	if err := cr.fill(m.Volume, rootfs, m.Target); err != nil {
		return err
	}
	root, err := os.OpenRoot(rootfs)
	if err != nil {
		return err
	}
	defer root.Close()
	rel := strings.TrimPrefix(filepath.Clean(m.Target), "/")
	if err := root.MkdirAll(rel, 0o755); err != nil {
		return err
	}
	dir, err := root.Open(rel)
	if err != nil {
		return err
	}
	defer dir.Close()
	if st, err := dir.Stat(); err != nil || !st.IsDir() {
		return fmt.Errorf("mount point is not a directory (%v)", err)
	}
	if err := unix.Mount(cr.volumes[m.Volume], fdPath(dir), "", unix.MS_BIND, ""); err != nil {
		return fmt.Errorf("bind mount: %w", err)
	}
	mnt, err := root.Open(rel) // now the volume's root
	if err != nil {
		return err
	}
	cr.mounted = append(cr.mounted, mnt)
	cr.agentMounts = append(cr.agentMounts, volumeMount{dir: cr.volumes[m.Volume], target: path.Clean(m.Target)})
	// nosuid and nodev as every bind of the container (env.RunConfig):
	// a set-ID file the agent makes in the volume grants nothing.
	flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_NOSUID | unix.MS_NODEV)
	if m.ReadOnly {
		flags |= unix.MS_RDONLY
	}
	if err := unix.Mount("", fdPath(mnt), "", flags, ""); err != nil {
		return fmt.Errorf("remount nosuid: %w", err)
	}
	return nil
}

// fdPath names an open file by its descriptor.
func fdPath(f *os.File) string {
	return fmt.Sprintf("/proc/self/fd/%d", f.Fd())
}

// sidecarArgv is the service's command line, as compose makes it: an
// entrypoint given by the service drops the image's CMD.
func sidecarArgv(sc tasks.Sidecar, img imagemeta.ImageConfig) []string {
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
// so that its Dockerfile and files are the build's whole input), or, for
// a service with an image only, as FROM that image (resolved like any
// FROM: the image map, a registry, the offline defaults).
func (r *runner) buildSidecar(ctx context.Context, sc tasks.Sidecar) (*imagemeta.TaskImage, error) {
	t := r.Options.Task
	tmp, err := os.MkdirTemp(r.Options.Dir, "sidecar-build-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	ctxDir := filepath.Join(tmp, tasks.DirEnvironment)
	if err := os.Mkdir(ctxDir, 0o755); err != nil {
		return nil, err
	}
	dockerfile := sc.Dockerfile
	if sc.Context == "" {
		dockerfile = "Dockerfile"
		if err := os.WriteFile(filepath.Join(ctxDir, dockerfile), []byte("FROM "+sc.Image+"\n"), 0o644); err != nil {
			return nil, err
		}
	} else {
		root, err := os.OpenRoot(ctxDir)
		if err != nil {
			return nil, err
		}
		err = copyTree(filepath.Join(t.ContextDir(), filepath.FromSlash(sc.Context)), root, ".", 0, 0)
		root.Close()
		if err != nil {
			return nil, fmt.Errorf("copy build context %s: %w", sc.Context, err)
		}
	}
	dfPath := filepath.Join(ctxDir, filepath.FromSlash(dockerfile))
	data, err := readBeneath(ctxDir, filepath.FromSlash(dockerfile))
	if err != nil {
		return nil, fmt.Errorf("dockerfile: %w", err)
	}
	df, err := tasks.ParseDockerfile(dfPath, data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dockerfile, err)
	}
	st := &tasks.Task{Name: t.Name + "-" + sc.Name, Dir: tmp, Dockerfile: df, Config: t.Config}
	log, err := r.CappedLog(runapi.FileBuildLog, "build log", r.LogLimit(), os.O_APPEND)
	if err != nil {
		return nil, err
	}
	defer r.CloseLog(log)
	// BuildTask builds the bases the sidecar's FROMs need, as for the task.
	img, _, err := env.BuildTask(ctx, r.Options.Images, st, r.BuildOptions(log))
	return img, err
}

// buildOptions are the image build options of the run's images.
func (r *runner) buildOptions(log io.Writer) env.BuildOptions {
	return env.BuildOptions{Builder: r.Options.Builder, BaseMap: r.Options.BaseMap, Registries: r.Options.Registries, Log: log}
}

// stopSidecars kills and deletes the sidecars (container.Kill: nothing
// of them is left running) and their rootfs, and unmounts the volumes
// from the agent's rootfs (the volumes' files stay in the run directory).
func (r *runner) stopSidecars() {
	cr := r.compose
	if cr == nil {
		return
	}
	for name, rs := range cr.sidecars {
		if rs.c != nil {
			rs.c.Kill()
			if _, _, err := rs.c.Ended(); err != nil {
				r.Log.Warn("stop sidecar", zap.String("service", name), zap.Error(err))
			}
		}
		if rs.log != nil {
			rs.log.Close()
		}
		if rs.rootfs != nil {
			if err := rs.rootfs.Close(); err != nil {
				r.Log.Error("close sidecar rootfs", zap.String("service", name), zap.Error(err))
			}
		}
	}
	for i := len(cr.mounted) - 1; i >= 0; i-- {
		if err := unix.Unmount(fdPath(cr.mounted[i]), unix.MNT_DETACH); err != nil {
			r.Log.Error("unmount volume", zap.String("at", cr.mounted[i].Name()), zap.Error(err))
		}
		cr.mounted[i].Close()
	}
	if cr.netns != nil {
		cr.netns.Close()
	}
	r.compose = nil
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
