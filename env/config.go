package env

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/pelletier/go-toml/v2"
)

// DefaultConfigFile is read when --config is not given (it may be absent).
const DefaultConfigFile = "/etc/authbench/config.toml"

// Config is the environment part of authbench's config file:
//
//	[env]
//	images_dir = "/var/lib/authbench/images"
//	builder = "buildah"
//	mirror = "http://deb.debian.org/debian"
//
//	[base_map]
//	"python:3.11-slim" = "authbench-base"
//	"ubuntu" = "authbench-base"
type Config struct {
	Env struct {
		ImagesDir string `toml:"images_dir"`
		Builder   string `toml:"builder"`
		Mirror    string `toml:"mirror"`
	} `toml:"env"`
	BaseMap BaseMap `toml:"base_map"`
}

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
			if k != "images_dir" && k != "builder" && k != "mirror" {
				return nil, fmt.Errorf("config %s: env.%s: unknown key (known: images_dir, builder, mirror)", name, k)
			}
		}
	}
	if c.Env.Builder != "" {
		if _, err := ParseBuilderKind(c.Env.Builder); err != nil {
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
