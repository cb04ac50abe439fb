package cli

import (
	"github.com/authbench/authbench/cli/core"
	"strings"

	"github.com/spf13/pflag"

	"github.com/authbench/authbench/env"
)

// imageMapUsage describes --image-map.
const imageMapUsage = "map an image a Dockerfile or compose file names to a local one, `REF=LOCAL` (repeatable; before any registry or offline default)"

// addImageMapFlag registers --image-map on fl, and --base-map, its
// former name (hidden), appending to the same list (one value behind
// both: two string-array flags would each replace the list on first use).
func addImageMapFlag(fl *pflag.FlagSet, p *[]string, usage string) {
	v := imageMapValue{p}
	fl.Var(v, "image-map", usage)
	fl.Var(v, "base-map", "former name of --image-map")
	_ = fl.MarkHidden("base-map")
}

// imageMapValue appends every use of the flag to one list.
type imageMapValue struct{ p *[]string }

func (v imageMapValue) Set(s string) error { *v.p = append(*v.p, s); return nil }
func (v imageMapValue) String() string {
	if v.p == nil {
		return ""
	}
	return strings.Join(*v.p, ",")
}
func (v imageMapValue) Type() string { return "stringArray" }

// imageMap parses the --image-map entries over the config file's
// [image_map] (flags win); the default config file may be absent.
func imageMap(entries []string) (env.BaseMap, error) {
	m, err := env.ParseBaseMap(entries)
	if err != nil {
		return nil, core.UsageErrorf("--image-map: %v", err)
	}
	cfg, err := env.LoadConfig(env.DefaultConfigFile, false)
	if err != nil {
		return nil, core.Usage(err)
	}
	return cfg.ImageMap().Merge(m), nil
}

// configRegistries are the default config file's [env] registries (none
// when it is absent).
func configRegistries() ([]env.Registry, error) {
	cfg, err := env.LoadConfig(env.DefaultConfigFile, false)
	if err != nil {
		return nil, core.Usage(err)
	}
	return cfg.Registries(), nil
}
