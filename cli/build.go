package cli

import (
	"context"
	"errors"
	"fmt"
	"github.com/authbench/authbench/cli/core"
	"os"
	"path/filepath"

	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/runapi"
)

// runFailed is the error of a run that ctx interrupted, that the daemon
// refused (a usage error), or that could not be submitted or followed.
func runFailed(ctx context.Context, err error) error {
	switch {
	case ctx.Err() != nil:
		return interrupted(err)
	case core.IsBadRequest(err):
		return core.Usage(err)
	}
	return err
}

// buildImage builds an image through the daemon API (image builds run
// privileged: nothing of them runs outside the daemon): the daemon on the
// socket when one listens, else one embedded here on images and
// registries. At log level info or debug the build log is copied to
// stderr afterwards. A task input the builder cannot take is a usage
// error.
func (a *app) buildImage(req *runapi.BuildRequest, images env.Store, registries []env.Registry) (*runapi.BuildResult, error) {
	if req.Dir != "" {
		abs, err := filepath.Abs(req.Dir)
		if err != nil {
			return nil, err
		}
		req.Dir = abs
	}
	var api runapi.API
	if c := a.DaemonClient(); c != nil {
		api = c
	} else {
		if os.Geteuid() != 0 {
			return nil, fmt.Errorf("no daemon answers on %q, and building images embedded needs root", a.Socket)
		}
		e, err := a.embed(embedConfig{imagesDir: images.Dir, registries: registries})
		if err != nil {
			return nil, err
		}
		defer a.closeEmbedded(e)
		api = e.Local
	}
	ctx, stop := interruptContext()
	defer stop()
	final, err := runapi.RunBuild(ctx, api, &runapi.RunRequest{Build: req})
	if err != nil {
		return nil, runFailed(ctx, err)
	}
	if w := a.toolLog(); w != nil {
		if data, err := runapi.ReadLog(ctx, api, final.ID, "build"); err == nil {
			_, _ = w.Write(data)
		}
	}
	res := final.BuildResult
	switch {
	case res != nil && res.InputError != "":
		return nil, core.Usage(errors.New(res.InputError))
	case final.State != runapi.StateSucceeded || res == nil:
		if final.Error == "" {
			return nil, fmt.Errorf("build %s %s", final.ID, final.State)
		}
		return nil, errors.New(final.Error)
	}
	return res, nil
}
