package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/authbench/authbench/cli/core"
	"github.com/authbench/authbench/env/imagemeta"

	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tasks"
)

// envFlags are the flags shared by the env commands.
type envFlags struct {
	configFile string
	imagesDir  string
	builder    string
	mirror     string
	baseMap    []string
	buildArgs  []string
	family     string
}

func (f *envFlags) add(cmd *cobra.Command, build bool) {
	fl := cmd.Flags()
	fl.StringVar(&f.configFile, "config", "", "config file (default "+env.DefaultConfigFile+" if it exists)")
	fl.StringVar(&f.imagesDir, "images-dir", "", "images directory (default "+env.DefaultImagesDir+")")
	fl.StringVar(&f.builder, "builder", "", "image builder: buildah (default), docker or podman")
	fl.StringVar(&f.mirror, "mirror", "", "Debian mirror for the base (default: the machine's apt sources)")
	if !build {
		fl.StringVar(&f.family, "family", "", "build a base family's base instead of authbench-base: "+strings.Join(env.FamilyNames(), ", "))
	}
	if build {
		addImageMapFlag(fl, &f.baseMap, imageMapUsage+"; LOCAL authbench-base is the local base")
		fl.StringArrayVar(&f.buildArgs, "build-arg", nil, "build argument KEY=VALUE (repeatable)")
	}
}

// envSetup is what the env commands work with, after flags and config.
type envSetup struct {
	store   env.Store
	builder env.Builder
	base    env.BaseConfig
	bases   env.Bases
	baseMap env.BaseMap
	// registries are the config's [env] registries.
	registries []env.Registry
	args       map[string]string
}

func (f *envFlags) resolve() (*envSetup, error) {
	name, required := f.configFile, true
	if name == "" {
		name, required = env.DefaultConfigFile, false
	}
	cfg, err := env.LoadConfig(name, required)
	if err != nil {
		return nil, core.Usage(err)
	}
	s := &envSetup{store: env.Store{Dir: firstNonEmpty(f.imagesDir, cfg.Env.ImagesDir, env.DefaultImagesDir)}}
	kind, err := imagemeta.ParseBuilderKind(firstNonEmpty(f.builder, cfg.Env.Builder, string(imagemeta.Buildah)))
	if err != nil {
		return nil, core.UsageErrorf("--builder: %v", err)
	}
	s.builder = env.NewBuilder(kind, s.store)
	s.base = env.DefaultBaseConfig()
	mirror := firstNonEmpty(f.mirror, cfg.Env.Mirror)
	if mirror != "" {
		s.base.Mirror = mirror
	}
	s.bases = env.Bases{Default: s.base, Mirror: mirror}
	if f.family != "" {
		if s.base, err = s.bases.Config(f.family); err != nil {
			return nil, core.UsageErrorf("--family: %v", err)
		}
	}
	flagMap, err := env.ParseBaseMap(f.baseMap)
	if err != nil {
		return nil, core.UsageErrorf("--image-map: %v", err)
	}
	s.baseMap = cfg.ImageMap().Merge(flagMap)
	s.registries = cfg.Registries()
	s.args = map[string]string{}
	for _, kv := range f.buildArgs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, core.UsageErrorf("--build-arg %q: want KEY=VALUE", kv)
		}
		s.args[k] = v
	}
	return s, nil
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

func (a *app) envCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "env",
		Short: "Build task environments: the local Debian base image and task images",
	}
	var baseFlags, buildFlags envFlags
	base := &cobra.Command{
		Use:   "base",
		Short: "Build the local base image (debootstrap Debian bookworm), or a base family's; a no-op when up to date",
		Long: "Builds authbench-base (Debian bookworm minbase with the tools task images use) or, with\n" +
			"--family, the base a published Dockerfile names as authbench-<family>-plain-base:local:\n" +
			familyHelp() +
			"Task builds make the bases they need on demand; this command makes one ahead of time.",
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := baseFlags.resolve()
			if err != nil {
				return err
			}
			res, err := a.ensureBase(s, baseFlags.family)
			if err != nil {
				return err
			}
			if a.JSONOut {
				return a.PrintJSON(map[string]any{"base": res.Image, "built": res.Built, "imported": res.Imported, "image": res.Tag})
			}
			return nil
		},
	}
	baseFlags.add(base, false)
	build := &cobra.Command{
		Use:   "build TASK",
		Short: "Build a task's environment image from its Dockerfile and export its rootfs",
		Long: "Builds TASK/environment/Dockerfile on top of the local base images it names (built\n" +
			"first if needed) and exports the result to a rootfs directory under the images directory.\n" +
			"A FROM resolves, in order, through --image-map REF=LOCAL and [image_map] in the config,\n" +
			"authbench-base (the local base), an image in the builder's storage, a pull from the\n" +
			"config's [env] registries, a base family's local base for authbench-<family>-plain-base\n" +
			"(what the published dataset writes), then the offline defaults (python:3.X-slim → a\n" +
			"Python family base laid out as the official image; ubuntu:* → authbench-base). Every\n" +
			"image used in place of the one written is listed with its reason. Heredocs (RUN <<EOF,\n" +
			"COPY <<EOF) are translated for buildah; one it cannot run is refused with its line.",
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := buildFlags.resolve()
			if err != nil {
				return err
			}
			t, err := tasks.Load(args[0])
			if err != nil {
				return core.Usage(err)
			}
			return a.buildTask(s, t)
		},
	}
	buildFlags.add(build, true)
	cmd.AddCommand(base, build)
	return cmd
}

// toolLog is where builder output goes: stderr at log level info or
// debug, nowhere otherwise (a failure still shows its tail).
func (a *app) toolLog() io.Writer {
	if a.LogLevel == "debug" || a.LogLevel == "info" {
		return a.Stderr
	}
	return nil
}

// ensureBase builds the base of s (family "": authbench-base), or finds
// it up to date, and imports it into the builder's storage, through the
// daemon API (buildImage).
func (a *app) ensureBase(s *envSetup, family string) (*runapi.BuildResult, error) {
	key := s.base.Key()
	a.Log.Info("base image", zap.String("key", key), zap.String("mirror", s.base.Mirror), zap.String("images_dir", s.store.Dir))
	res, err := a.buildImage(&runapi.BuildRequest{Family: family, Mirror: s.bases.Mirror, Builder: string(s.builder.Kind)}, s.store, s.registries)
	if err != nil {
		return nil, err
	}
	switch {
	case res.Built:
		fmt.Fprintf(a.Stderr, "built base image %s in %.1fs: %s\n", res.Key, res.BuildSeconds, res.Rootfs)
	default:
		fmt.Fprintf(a.Stderr, "base image %s is up to date (built %s), nothing to do: %s\n", res.Key, res.BuiltAt.Format("2006-01-02 15:04:05Z"), res.Rootfs)
	}
	if res.Imported {
		fmt.Fprintf(a.Stderr, "imported it into %s as %s\n", s.builder.Kind, res.Tag)
	}
	return res, nil
}

// buildTask builds t's image with s, or finds it up to date, through the
// daemon API (buildImage).
func (a *app) buildTask(s *envSetup, t *tasks.Task) error {
	res, err := a.buildImage(&runapi.BuildRequest{Dir: t.Dir, Mirror: s.bases.Mirror, Builder: string(s.builder.Kind),
		BaseMap: s.baseMap, BuildArgs: s.args}, s.store, s.registries)
	if err != nil {
		return err
	}
	if res.Built {
		fmt.Fprintf(a.Stderr, "built %s in %.1fs: %s\n", t.Name, res.BuildSeconds, res.Rootfs)
	} else {
		fmt.Fprintf(a.Stderr, "%s is up to date, nothing to do: %s\n", t.Name, res.Rootfs)
	}
	if a.JSONOut {
		return a.PrintJSON(map[string]any{"image": res.Image, "built": res.Built})
	}
	return nil
}

// familyHelp lists the base families, one a line.
func familyHelp() string {
	var b strings.Builder
	for _, f := range env.BaseFamilies {
		fmt.Fprintf(&b, "  %-20s %s\n", f.Name, f.Doc)
	}
	return b.String()
}
