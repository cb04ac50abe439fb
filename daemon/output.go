package daemon

import (
	"fmt"
	"os"
	"time"

	"github.com/authbench/authbench/internal/capped"
	"github.com/authbench/authbench/runapi"
)

// outputGrace is how long the output of a tree may keep coming after
// the tree was reaped (descendants that still hold its pipes).
const outputGrace = 2 * time.Second

// runOutput stores the stdout and stderr of a run's tree, each capped at
// Config.MaxOutputBytes. A failure to write them fails the run.
type runOutput struct {
	stdout, stderr *outputPipe
}

// openOutput creates the run's stdout and stderr logs and the pipes the
// tree writes them through.
func (m *Manager) openOutput(ar *activeRun) (*runOutput, error) {
	stdout, err := m.openStream(ar, stdoutFile, "stdout")
	if err != nil {
		return nil, err
	}
	stderr, err := m.openStream(ar, stderrFile, "stderr")
	if err != nil {
		stdout.finish(0)
		return nil, err
	}
	return &runOutput{stdout: stdout, stderr: stderr}, nil
}

func (m *Manager) openStream(ar *activeRun, file, name string) (*outputPipe, error) {
	f, err := os.Create(m.store.RunFile(ar.rec.ID, file))
	if err != nil {
		return nil, fmt.Errorf("create %s log: %w", name, err)
	}
	w := capped.NewWriter(f, name, m.cfg.MaxOutputBytes, func(err error) { m.fault(ar, err) })
	p, err := startOutputPipe(w, name)
	if err != nil {
		f.Close()
		return nil, err
	}
	return p, nil
}

// files are the tree's ends of the pipes.
func (o *runOutput) files() (stdout, stderr *os.File) { return o.stdout.childEnd, o.stderr.childEnd }

// started closes the daemon's copies of the tree's ends.
func (o *runOutput) started() {
	o.stdout.started()
	o.stderr.started()
}

// closeOutput waits for the end of the run's output, closes its logs and
// records what was not stored.
func (m *Manager) closeOutput(ar *activeRun, o *runOutput) {
	_ = o.stdout.finish(outputGrace) // write errors fail the run (fault)
	_ = o.stderr.finish(outputGrace)
	out, errOut := o.stdout.w.Dropped(), o.stderr.w.Dropped()
	if out+errOut == 0 {
		return
	}
	m.metrics.OutputDropped(int64(out + errOut))
	m.amend(ar, func(r *runapi.Run) { r.StdoutDroppedBytes, r.StderrDroppedBytes = out, errOut }) // saved with the end
}
