package oracle

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/authbench/authbench/env/imagemeta"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tasks"
)

// ImageRoot has api build the task's image (an image build run of the
// daemon: its image store, with the local bases the Dockerfile's FROMs
// need, as a task run does) or find it built, and returns its root
// filesystem: the environment the oracle's paths are resolved in and
// scored over. The root is only read.
func ImageRoot(ctx context.Context, api runapi.API, t *tasks.Task, baseMap map[string]string) (*policy.Root, *imagemeta.TaskImage, error) {
	dir, err := filepath.Abs(t.Dir)
	if err != nil {
		return nil, nil, err
	}
	final, err := runapi.RunBuild(ctx, api, &runapi.RunRequest{Build: &runapi.BuildRequest{Dir: dir, BaseMap: baseMap}})
	if err != nil {
		return nil, nil, err
	}
	res := final.BuildResult
	if final.State != runapi.StateSucceeded || res == nil {
		return nil, nil, fmt.Errorf("image of task %s: build %s: %s", t.Name, final.State, final.Error)
	}
	var img imagemeta.TaskImage
	if err := json.Unmarshal(res.Image, &img); err != nil {
		return nil, nil, fmt.Errorf("image of task %s: %w", t.Name, err)
	}
	root, err := policy.NewRoot(img.Rootfs)
	if err != nil {
		return nil, nil, fmt.Errorf("image of task %s: %w", t.Name, err)
	}
	return root, &img, nil
}
