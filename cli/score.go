package cli

import (
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"github.com/authbench/authbench/cli/core"
	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/tasks"
)

// scoreTaskTarget is `score --task DIR` of the full CLI: the task's spec
// over its image's rootfs, the image built through the daemon API first
// when it is not in --images-dir yet.
func (a *app) scoreTaskTarget() *core.TaskTarget {
	var imagesDir string
	var baseMap []string
	return &core.TaskTarget{
		AddFlags: func(fl *pflag.FlagSet) {
			fl.StringVar(&imagesDir, "images-dir", env.DefaultImagesDir, "task images, with --task")
			addImageMapFlag(fl, &baseMap, "with --task: "+imageMapUsage)
		},
		Resolve: func(dir string) (*policy.Spec, *policy.Root, error) {
			t, err := tasks.Load(dir)
			if err != nil {
				return nil, nil, core.UsageErrorf("--task: %v", err)
			}
			if t.Spec == nil {
				return nil, nil, core.UsageErrorf("--task: task %s has no permission spec", t.Name)
			}
			m, err := imageMap(baseMap)
			if err != nil {
				return nil, nil, err
			}
			if os.Geteuid() != 0 {
				return nil, nil, fmt.Errorf("score --task: building or reading task images needs root")
			}
			img, err := a.buildImage(&runapi.BuildRequest{Dir: t.Dir, BaseMap: m}, env.Store{Dir: imagesDir}, nil)
			if err != nil {
				return nil, nil, fmt.Errorf("score --task %s: image: %w", t.Name, err)
			}
			root, err := policy.NewRoot(img.Rootfs)
			if err != nil {
				return nil, nil, fmt.Errorf("score --task %s: %w", t.Name, err)
			}
			return t.Spec, root, nil
		},
	}
}
