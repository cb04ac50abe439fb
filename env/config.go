package env

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/pelletier/go-toml/v2"

	"github.com/authbench/authbench/env/imagemeta"
)

// DefaultConfigFile is read when --config is not given (it may be absent).
const DefaultConfigFile = "/etc/authbench/config.toml"

// Config is the environment part of authbench's config file:
//
//	[env]
//	images_dir = "/var/lib/authbench/images"
//	builder = "buildah"
//	mirror = "http://deb.debian.org/debian"
//	registries = ["http://127.0.0.1:5000"]   # tried in order before the offline defaults
//
//	[image_map]                   # [base_map], its former name, is read too
//	"python:3.11-slim" = "authbench-base"
//	"ubuntu" = "authbench-base"
type Config struct {
	Env struct {
		ImagesDir  string   `toml:"images_dir"`
		Builder    string   `toml:"builder"`
		Mirror     string   `toml:"mirror"`
		Registries []string `toml:"registries"`
	} `toml:"env"`
	BaseMap      BaseMap `toml:"base_map"`
	ImageMapKeys BaseMap `toml:"image_map"`
	// registries are Env.Registries, parsed.
	registries []Registry
}

// ImageMap is the config's image map: [base_map] with [image_map] over
// it.
func (c *Config) ImageMap() BaseMap { return c.BaseMap.Merge(c.ImageMapKeys) }

// Registries are the registries images are pulled from, in order.
func (c *Config) Registries() []Registry { return c.registries }

// LoadConfig reads the config file name. A missing file is no error when
// it is the default one (required false). Unknown keys and wrong types
// are errors with their line.
func LoadConfig(name string, required bool) (*Config, error) {
	data, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) && !required {
		return &Config{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	return ParseConfig(data, name)
}

// ParseConfig parses the content of a config file; other top-level
// tables (for other parts of authbench) are left alone.
func ParseConfig(data []byte, name string) (*Config, error) {
	var all map[string]any
	if err := toml.Unmarshal(data, &all); err != nil {
		return nil, configError(name, err)
	}
	c := &Config{}
	dec := toml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(c); err != nil {
		return nil, configError(name, err)
	}
	if env, ok := all["env"].(map[string]any); ok {
		for k := range env {
			if k != "images_dir" && k != "builder" && k != "mirror" && k != "registries" {
				return nil, fmt.Errorf("config %s: env.%s: unknown key (known: images_dir, builder, mirror, registries)", name, k)
			}
		}
	}
	for _, r := range c.Env.Registries {
		reg, err := ParseRegistry(r)
		if err != nil {
			return nil, fmt.Errorf("config %s: env.registries: %w", name, err)
		}
		c.registries = append(c.registries, reg)
	}
	if c.Env.Builder != "" {
		if _, err := imagemeta.ParseBuilderKind(c.Env.Builder); err != nil {
			return nil, fmt.Errorf("config %s: env.builder: %w", name, err)
		}
	}
	return c, nil
}

func configError(name string, err error) error {
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, _ := de.Position()
		return fmt.Errorf("config %s:%d: %v", name, line, de.Error())
	}
	return fmt.Errorf("config %s: %w", name, err)
}
