package runapi

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// BuildRequest asks for an image build (package env): a base image, or a
// task's environment image exported to a rootfs directory, built in the
// daemon's image store or found up to date there. Building runs
// privileged tools (debootstrap, buildah), so it is a run of the daemon
// like any other: the CLI starts nothing privileged itself. A caller
// that is not root may build only a task of a trusted task root, with
// the default builder and mirror.
type BuildRequest struct {
	// Dir is the task directory whose image to build, absolute; empty
	// builds a base image.
	Dir string `json:"dir,omitempty"`
	// Family names the base family to build (a base build; empty:
	// authbench-base).
	Family string `json:"family,omitempty"`
	// Mirror is the Debian mirror of the bases (empty: the machine's apt
	// sources).
	Mirror string `json:"mirror,omitempty"`
	// Builder is "buildah" (the default), "docker" or "podman".
	Builder string `json:"builder,omitempty"`
	// BaseMap maps FROM images to local ones (NAME=IMAGE).
	BaseMap map[string]string `json:"base_map,omitempty"`
	// BuildArgs are the task build's arguments (KEY=VALUE).
	BuildArgs map[string]string `json:"build_args,omitempty"`
}

// BuildResult is how an image build went (Run.BuildResult).
type BuildResult struct {
	// Image is the image as package env records it (an env.BaseImage
	// for a base, an imagemeta.TaskImage for a task).
	Image json.RawMessage `json:"image,omitempty"`
	// Rootfs is the image's root filesystem directory.
	Rootfs string `json:"rootfs,omitempty"`
	// Key names a base image (its configuration's key).
	Key string `json:"key,omitempty"`
	// Built is set when the image was built by this request, not found
	// up to date; BuildSeconds is then its build time.
	Built        bool    `json:"built"`
	BuildSeconds float64 `json:"build_seconds,omitempty"`
	// BuiltAt is when the image was built.
	BuiltAt time.Time `json:"built_at,omitempty"`
	// Imported is set when a base was imported into the builder's
	// storage, as Tag.
	Imported bool   `json:"imported,omitempty"`
	Tag      string `json:"tag,omitempty"`
	// InputError, when set, says that the task's input cannot be built
	// (a FROM nothing resolves, a heredoc the builder cannot run): the
	// caller's mistake, not the build's.
	InputError string `json:"input_error,omitempty"`
}

// RunBuild submits an image build to api and waits for its end. The
// error is for a build that could not be submitted or followed; a build
// that failed returns its record (Error and BuildResult say why).
func RunBuild(ctx context.Context, api API, req *RunRequest) (*Run, error) {
	if req.Build == nil {
		return nil, fmt.Errorf("build: the request names no build")
	}
	return submitAndWait(ctx, api, req, "build")
}
