// Package imagemeta is what a built task image is, as data: the record
// package env writes beside the rootfs it exports (TaskImage: its key,
// builder, how each FROM was resolved, the image config a run needs) and
// the image build's result carries. Pure: the oracle and the CLI read a
// build's image through it without linking the builders.
package imagemeta

import (
	"fmt"
	"time"
)

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

// BuilderKind names an image builder.
type BuilderKind string

// The builders authbench can drive. Buildah is the default: daemonless,
// overlay storage, each RUN step in runc with namespaces of its own
// (env's confined build), so it works without a container engine.
const (
	Buildah BuilderKind = "buildah"
	Docker  BuilderKind = "docker"
	Podman  BuilderKind = "podman"
)

// ParseBuilderKind checks a --builder value.
func ParseBuilderKind(s string) (BuilderKind, error) {
	switch k := BuilderKind(s); k {
	case Buildah, Docker, Podman:
		return k, nil
	}
	return "", fmt.Errorf("unknown builder %q (want buildah, docker or podman)", s)
}

// ResolvedFrom says how one FROM was resolved.
type ResolvedFrom struct {
	// Line is the FROM's line in the Dockerfile.
	Line int `json:"line"`
	// Written is the image as written; Expanded after ARG substitution.
	Written  string `json:"written"`
	Expanded string `json:"expanded"`
	// Image is what the build uses ("" when unresolved).
	Image string `json:"image,omitempty"`
	// How names the rule: "stage", "scratch", "authbench-base",
	// "family NAME", "image-map NAME", "pull REGISTRY", "default" or
	// "local".
	How string `json:"how,omitempty"`
	// Base is the local base the image is ("authbench-base" or a family
	// name), "" when it is none: the build makes it on demand.
	Base string `json:"base,omitempty"`
	// Digest is a pulled image's manifest digest (Image is then the
	// exact reference REG/REPO@DIGEST), or the digest of the base a
	// family was built on.
	Digest string `json:"digest,omitempty"`
	// ID is the image ID of an image the build took from the builder's
	// storage by its exact name ("local", an image map's target): what
	// the name meant at this build.
	ID string `json:"id,omitempty"`
	// StandIn names the stand-in recipe (env.StandIns) the build makes the
	// image from when it is missing.
	StandIn string `json:"stand_in,omitempty"`
	// Why says, when the image used is not the one written, what stands
	// in for it ("" when it is the image written, or a stage).
	Why string `json:"why,omitempty"`
}

// ImageConfig is the part of an image's config that a run needs.
type ImageConfig struct {
	Env        []string `json:"env,omitempty"`
	WorkingDir string   `json:"working_dir,omitempty"`
	User       string   `json:"user,omitempty"`
	Entrypoint []string `json:"entrypoint,omitempty"`
	Cmd        []string `json:"cmd,omitempty"`
}
