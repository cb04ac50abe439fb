package installed

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/authbench/authbench/internal/lifecycle"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/sandbox"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// DefaultCacheDir holds harness layers and npm's download cache.
const DefaultCacheDir = "/var/cache/authbench/harness"

// layerFormat changes whenever the way a layer is made changes.
const layerFormat = 2

// completeMark marks a finished layer directory.
const completeMark = ".authbench-layer-complete"

// nodeArch is the npm registry's name for a Go architecture.
func nodeArch(goarch string) (string, error) {
	switch goarch {
	case "amd64":
		return "x64", nil
	case "arm64":
		return "arm64", nil
	}
	return "", fmt.Errorf("no Node.js package for %s", goarch)
}

// LayerKey names a harness's layer for this machine: harness, version,
// Node.js version and architecture.
func (h Harness) LayerKey() string {
	return fmt.Sprintf("%s-%s-node%s-%s-l%d", h.Name, strings.ReplaceAll(h.Version, "/", "_"), NodeVersion, runtime.GOARCH, layerFormat)
}

// Layer returns the harness's layer directory under cacheDir (its
// contents go to the container's /), making it first when it is not
// cached: Node.js from the registry's node-linux-<arch> package and the
// harness's package tree, both through the host's npm with its download
// cache in cacheDir/npm. npm runs no package script (--ignore-scripts):
// nothing from the registry runs on the host. Concurrent callers wait
// for one another (a lock per layer); a half-made layer is never used.
// built says whether it was made now.
//
// A harness that completes its install on its first run (OpenClaw: its
// package lifecycle, which writes into its package directory) is run
// once, with Complete, by self (the authbench binary) as sandbox-init:
// as root without capabilities, no_new_privs, the default seccomp
// profile, Landlock letting it read everything and write and execute
// under the new layer only.
func Layer(ctx context.Context, cacheDir string, h Harness, self string, log io.Writer) (dir string, built bool, err error) {
	if log == nil {
		log = io.Discard
	}
	layers := filepath.Join(cacheDir, "layers")
	if err := os.MkdirAll(layers, 0o755); err != nil {
		return "", false, fmt.Errorf("harness layer: %w", err)
	}
	key := h.LayerKey()
	dir = filepath.Join(layers, key)
	lock, err := os.OpenFile(filepath.Join(layers, "."+key+".lock"), os.O_CREATE|os.O_RDWR|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return "", false, fmt.Errorf("harness layer: %w", err)
	}
	defer lock.Close()
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX); err != nil {
		return "", false, fmt.Errorf("harness layer: lock: %w", err)
	}
	if _, err := os.Stat(filepath.Join(dir, completeMark)); err == nil {
		return dir, false, nil
	}
	os.RemoveAll(dir)
	tmp, err := os.MkdirTemp(layers, ".tmp-"+key+"-")
	if err != nil {
		return "", false, fmt.Errorf("harness layer: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := os.Chmod(tmp, 0o755); err != nil {
		return "", false, err
	}
	if err := makeLayer(ctx, cacheDir, tmp, h, self, log); err != nil {
		return "", false, fmt.Errorf("harness layer %s: %w", key, err)
	}
	if err := os.WriteFile(filepath.Join(tmp, completeMark), nil, 0o644); err != nil {
		return "", false, err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return "", false, fmt.Errorf("harness layer: %w", err)
	}
	return dir, true, nil
}

// makeLayer fills dir with Root's contents for h.
func makeLayer(ctx context.Context, cacheDir, dir string, h Harness, self string, log io.Writer) error {
	arch, err := nodeArch(runtime.GOARCH)
	if err != nil {
		return err
	}
	npmCache := filepath.Join(cacheDir, "npm")
	root := filepath.Join(dir, strings.TrimPrefix(Root, "/"))
	pack := filepath.Join(dir, ".pack")
	for _, d := range []string{root, pack} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	nodePkg := "node-linux-" + arch + "@" + NodeVersion
	if err := npm(ctx, log, "pack", "--cache", npmCache, "--pack-destination", pack, nodePkg); err != nil {
		return fmt.Errorf("fetch %s: %w", nodePkg, err)
	}
	tgz := filepath.Join(pack, "node-linux-"+arch+"-"+NodeVersion+".tgz")
	if err := extractFile(tgz, "package/bin/node", filepath.Join(root, "node", "bin", "node"), 0o755, 512<<20); err != nil {
		return fmt.Errorf("%s: %w", nodePkg, err)
	}
	if err := os.RemoveAll(pack); err != nil {
		return err
	}
	prefix := filepath.Join(root, h.Name)
	if err := os.MkdirAll(prefix, 0o755); err != nil {
		return err
	}
	if len(h.Overrides) > 0 {
		manifest, err := json.Marshal(map[string]any{"private": true, "overrides": h.Overrides})
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(prefix, "package.json"), manifest, 0o644); err != nil {
			return err
		}
	}
	spec := h.Package + "@" + h.Version
	if err := npm(ctx, log, "install", "--prefix", prefix, "--cache", npmCache, "--ignore-scripts",
		"--no-audit", "--no-fund", "--omit=dev", "--no-package-lock", "--no-save", spec); err != nil {
		return fmt.Errorf("install %s: %w", spec, err)
	}
	if _, err := os.Stat(filepath.Join(dir, strings.TrimPrefix(h.EntryPath(), "/"))); err != nil {
		return fmt.Errorf("install %s: no %s: %w", spec, h.EntryPath(), err)
	}
	if h.Complete != nil {
		if err := complete(ctx, dir, h, self, log); err != nil {
			return fmt.Errorf("complete the install of %s: %w", spec, err)
		}
	}
	// Everyone may read and run what is in the layer (npm honours the
	// umask); nobody but root may change it.
	return filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.Type()&os.ModeSymlink != 0 {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		mode := info.Mode().Perm() | 0o444
		if d.IsDir() || info.Mode().Perm()&0o100 != 0 {
			mode |= 0o111
		}
		return os.Chmod(p, mode&^0o022)
	})
}

// npm runs the host's npm.
func npm(ctx context.Context, log io.Writer, args ...string) error {
	cmd := exec.CommandContext(ctx, "npm", args...)
	cmd.Env = append(os.Environ(), "npm_config_update_notifier=false", "npm_config_loglevel=warn")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return fmt.Errorf("npm is needed on the host to install harnesses: %w", err)
		}
		return fmt.Errorf("npm %s: %w", args[0], err)
	}
	return nil
}

// extractFile writes the regular file name of the gzipped tar archive to
// dst with mode, refusing one over max bytes.
func extractFile(archive, name, dst string, mode os.FileMode, max int64) error {
	f, err := os.Open(archive)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(zr)
	for {
		hd, err := tr.Next()
		if err == io.EOF {
			return fmt.Errorf("no %s in %s", name, filepath.Base(archive))
		}
		if err != nil {
			return err
		}
		if hd.Name != name || hd.Typeflag != tar.TypeReg {
			continue
		}
		if hd.Size > max {
			return fmt.Errorf("%s: %d bytes, over %d", name, hd.Size, max)
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, mode)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, io.LimitReader(tr, max)); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	}
}

// installKillGrace is how long a killed install completion (its own PID
// namespace: the kill ends its whole tree) may take to be reaped.
const installKillGrace = 5 * time.Second

// complete runs h's install completion in the layer being made (dir),
// confined (see Layer).
func complete(ctx context.Context, dir string, h Harness, self string, log io.Writer) error {
	home := filepath.Join(dir, ".home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		return err
	}
	defer os.RemoveAll(home)
	doc, err := json.Marshal(map[string][]string{"read": {"/**"}, "write": {dir + "/**"}, "execute": {dir + "/**"}})
	if err != nil {
		return err
	}
	pol, err := policy.ParsePolicy(doc, "harness install")
	if err != nil {
		return err
	}
	root, err := policy.NewRoot("/")
	if err != nil {
		return err
	}
	confinement, err := sandbox.NewConfinement(sandbox.Identity(0, 0), sandbox.LandlockPolicy(pol, policy.DefaultBaseline(), root),
		sandbox.SeccompProfile(sandbox.DefaultProfile()), sandbox.CloseInheritedFDs(), sandbox.DropCapabilities(), sandbox.NoNewPrivs())
	if err != nil {
		return err
	}
	node := filepath.Join(dir, strings.TrimPrefix(Node, "/"))
	entry := filepath.Join(dir, strings.TrimPrefix(h.EntryPath(), "/"))
	spec := confinement.Confine(sandbox.Command{Path: node, Args: append([]string{"node", entry}, h.Complete...), Dir: home,
		Env: []string{"HOME=" + home, "PATH=" + filepath.Dir(node) + ":/usr/bin:/bin", "NO_COLOR=1", "CI=1"}})
	opts := sandbox.LaunchOptions{OwnPIDNamespace: true}
	child, err := sandbox.StartWith(self, spec, opts, nil, log, log)
	if err != nil {
		return err
	}
	// The one life of a gated tree: released, waited for, killed with
	// everything in it when ctx ends.
	res := lifecycle.Run(ctx, lifecycle.NewChildTree(child, opts), lifecycle.Steps{KillGrace: installKillGrace})
	if res.StartErr != nil {
		return fmt.Errorf("%s install completion: %w", h.Name, res.StartErr)
	}
	if res.Killed {
		return fmt.Errorf("%s install completion: %w", h.Name, ctx.Err())
	}
	if res.Status != 0 {
		return fmt.Errorf("%s %s: exit status %d", h.Name, strings.Join(h.Complete, " "), res.Status)
	}
	return nil
}
