package taskrun

import (
	"context"
	"os"

	"go.uber.org/zap"

	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/env/imagemeta"
	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/taskrun/internal/runbox"
)

// BuildImage makes sure the task's image (and the local base) exist, as
// a run does, and returns it; only Task, Images, Builder, BaseMap and
// Log of o are used. The build log is written to logDir/build.log.
func BuildImage(ctx context.Context, o Options, logDir string) (*imagemeta.TaskImage, error) {
	if err := os.MkdirAll(logDir, 0o750); err != nil {
		return nil, err
	}
	o.Dir = logDir
	b := &runbox.Box{Options: o, Log: o.Log}
	if b.Log == nil {
		b.Log = zap.NewNop()
	}
	return b.BuildImage(ctx)
}

// noteSubstitutions records the substitutions of an image built for
// service ("" the agent's).
func (r *runner) noteSubstitutions(service string, img *imagemeta.TaskImage) {
	for _, s := range env.Substitutions(img.Froms) {
		r.res.ImageSubstitutions = append(r.res.ImageSubstitutions, runapi.ImageSubstitution{Service: service, Ref: s.Ref, Used: s.Used, Why: s.Why})
	}
}
