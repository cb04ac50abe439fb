package oracle

import (
	"context"
	"fmt"
	"io"

	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/tasks"
)

// ImageRoot builds the task's image in the store at imagesDir (or finds
// it there already built) and returns its root filesystem: the
// environment the oracle's paths are resolved in and scored over. The
// root is only read.
func ImageRoot(ctx context.Context, imagesDir string, t *tasks.Task, baseMap map[string]string, log io.Writer) (*policy.Root, *env.TaskImage, error) {
	if log == nil {
		log = io.Discard
	}
	store := env.Store{Dir: imagesDir}
	// BuildTask builds the local bases the Dockerfile's FROMs need (the
	// default one, or a family's), as a task run does.
	img, _, err := env.BuildTask(ctx, store, t, env.BuildOptions{Builder: env.NewBuilder(env.Buildah, store), BaseMap: env.BaseMap(baseMap), Log: log})
	if err != nil {
		return nil, nil, err
	}
	root, err := policy.NewRoot(img.Rootfs)
	if err != nil {
		return nil, nil, fmt.Errorf("image of task %s: %w", t.Name, err)
	}
	return root, img, nil
}
