package env

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// baseFormat changes whenever BuildBase's post-processing changes, so
// that old bases are not reused.
const baseFormat = 2

// BasePackages are installed on top of debootstrap's minbase. netbase
// and locales are there for the files the default runtime baseline names
// (/etc/services, /etc/protocols, /etc/locale.alias): under the published
// semantics a spec's implicit read of a missing file grants its nearest
// existing ancestor, /etc.
var BasePackages = []string{
	"acl", "ca-certificates", "curl", "file", "gcc", "git", "golang-go", "jq", "libc6-dev", "locales", "make",
	"netbase", "nodejs", "procps", "python-is-python3", "python3", "python3-pytest", "sqlite3",
}

// BaseImageName is the name the base has in the builder's storage; a
// Dockerfile says FROM authbench-base (or maps another image to it).
const (
	BaseImageName = "localhost/authbench-base"
	BaseShortName = "authbench-base"
)

// BaseConfig says what goes into the base image. Its Key is the cache key.
type BaseConfig struct {
	Suite    string   `json:"suite"`
	Variant  string   `json:"variant"`
	Arch     string   `json:"arch"`
	Mirror   string   `json:"mirror"`
	Packages []string `json:"packages"`
	// Family is the base family (BaseFamilies) this base is made for, ""
	// for the default base. It is not part of the Key.
	Family string `json:"family,omitempty"`
	// PythonLayout lays Debian's Python out as the official python:3.X
	// images have it (OfficialPythonLayout).
	PythonLayout bool `json:"python_layout,omitempty"`
}

// DefaultBaseConfig is Debian bookworm minbase plus BasePackages from the
// machine's configured mirror.
func DefaultBaseConfig() BaseConfig {
	return BaseConfig{
		Suite:    "bookworm",
		Variant:  "minbase",
		Arch:     DebianArch(runtime.GOARCH),
		Mirror:   MachineMirror("bookworm"),
		Packages: append([]string(nil), BasePackages...),
	}
}

// DebianArch maps a GOARCH to Debian's architecture name.
func DebianArch(goarch string) string {
	switch goarch {
	case "386":
		return "i386"
	case "arm":
		return "armhf"
	case "ppc64le":
		return "ppc64el"
	}
	return goarch
}

// normalized sorts and deduplicates the package list.
func (c BaseConfig) normalized() BaseConfig {
	pk := append([]string(nil), c.Packages...)
	sort.Strings(pk)
	out := pk[:0]
	for i, p := range pk {
		if p != "" && (i == 0 || p != pk[i-1]) {
			out = append(out, p)
		}
	}
	c.Packages = out
	c.Mirror = strings.TrimRight(c.Mirror, "/")
	return c
}

// Key is the content hash of the config (package order does not matter;
// the family name does not count, so families with the same content share
// one base).
func (c BaseConfig) Key() string {
	n := c.normalized()
	n.Family = ""
	data, _ := json.Marshal(struct {
		Format int        `json:"format"`
		Config BaseConfig `json:"config"`
	}{baseFormat, n})
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])[:16]
}

// Tag is the builder tag of this base: its key, so that two bases never
// share a tag.
func (c BaseConfig) Tag() string { return BaseImageName + ":" + c.Key() }

// DebootstrapArgv is the debootstrap command that creates the base in
// target.
func (c BaseConfig) DebootstrapArgv(target string) []string {
	n := c.normalized()
	argv := []string{"debootstrap", "--variant=" + n.Variant, "--arch=" + n.Arch, "--components=main"}
	if len(n.Packages) > 0 {
		argv = append(argv, "--include="+strings.Join(n.Packages, ","))
	}
	return append(argv, n.Suite, target, n.Mirror)
}

// BaseImage is a built base.
type BaseImage struct {
	Key    string     `json:"key"`
	Config BaseConfig `json:"config"`
	// Rootfs is the base's root filesystem directory.
	Rootfs string `json:"rootfs"`
	// BuiltAt and BuildSeconds describe the build.
	BuiltAt      time.Time `json:"built_at"`
	BuildSeconds float64   `json:"build_seconds"`
}

// BuildBase makes the base image of cfg under the store unless it is
// there already; built says whether it did any work. Concurrent callers
// wait for each other. Progress goes to log (may be nil).
func BuildBase(ctx context.Context, s Store, cfg BaseConfig, log io.Writer) (img *BaseImage, built bool, err error) {
	cfg = cfg.normalized()
	key := cfg.Key()
	unlock, err := s.lock("base-" + key)
	if err != nil {
		return nil, false, fmt.Errorf("build base: %w", err)
	}
	defer unlock()
	dir := s.BaseDir(key)
	img = &BaseImage{}
	if ok, err := readMeta(dir, img); err != nil || ok {
		if err != nil {
			return nil, false, fmt.Errorf("build base: %w", err)
		}
		img.Config.Family = cfg.Family // the same content, asked for by this name
		return img, false, nil
	}
	if os.Geteuid() != 0 {
		return nil, false, fmt.Errorf("build base: debootstrap needs root (run as root, or let the authbench daemon build it)")
	}
	start := time.Now()
	tmp, err := s.tmpDir("base-" + key + "-")
	if err != nil {
		return nil, false, fmt.Errorf("build base: %w", err)
	}
	defer os.RemoveAll(tmp)
	rootfs := filepath.Join(tmp, "rootfs")
	if _, err := runTool(ctx, log, nil, cfg.DebootstrapArgv(rootfs)...); err != nil {
		return nil, false, fmt.Errorf("build base (debootstrap %s from %s): %w", cfg.Suite, cfg.Mirror, err)
	}
	if err := finishBase(rootfs, cfg); err != nil {
		return nil, false, fmt.Errorf("build base: %w", err)
	}
	if err := install(tmp, dir); err != nil {
		return nil, false, fmt.Errorf("build base: %w", err)
	}
	img = &BaseImage{Key: key, Config: cfg, Rootfs: filepath.Join(dir, "rootfs"), BuiltAt: time.Now().UTC(), BuildSeconds: time.Since(start).Seconds()}
	if err := writeMeta(dir, img); err != nil {
		return nil, false, fmt.Errorf("build base: %w", err)
	}
	return img, true, nil
}

// finishBase trims debootstrap's output: downloaded packages go, the apt
// sources point at the mirror (so Dockerfiles can apt-get install),
// modification times are whole seconds (image layers keep no more, and
// dedupe needs them equal), and the root directory is world-traversable.
func finishBase(rootfs string, cfg BaseConfig) error {
	debs, _ := filepath.Glob(filepath.Join(rootfs, "var/cache/apt/archives/*.deb"))
	for _, d := range debs {
		if err := os.Remove(d); err != nil {
			return err
		}
	}
	sources := fmt.Sprintf("deb %s %s main\n", cfg.Mirror, cfg.Suite)
	if err := os.WriteFile(filepath.Join(rootfs, "etc/apt/sources.list"), []byte(sources), 0o644); err != nil {
		return err
	}
	if err := os.Chmod(rootfs, 0o755); err != nil {
		return err
	}
	if cfg.PythonLayout {
		if err := applyPythonLayout(rootfs); err != nil {
			return fmt.Errorf("python layout: %w", err)
		}
	}
	return truncateMtimes(rootfs)
}

// truncateMtimes drops the sub-second part of every modification time
// below rootfs (symlinks included, without following them).
func truncateMtimes(rootfs string) error {
	return filepath.WalkDir(rootfs, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			return err
		}
		if st.Mtim.Nsec == 0 && st.Atim.Nsec == 0 {
			return nil
		}
		ts := []unix.Timespec{{Sec: st.Atim.Sec}, {Sec: st.Mtim.Sec}}
		return unix.UtimesNanoAt(unix.AT_FDCWD, p, ts, unix.AT_SYMLINK_NOFOLLOW)
	})
}
