package taskrun

import (
	"os"
	"path/filepath"

	"go.uber.org/zap"

	"github.com/authbench/authbench/internal/capped"
)

// DefaultMaxLogBytes caps each log a run stores of what task code writes
// (agent and verifier output, build log) when Options.MaxOutputBytes is
// not set.
const DefaultMaxLogBytes = 64 << 20

// logLimit is the cap of each stored log: Options.MaxOutputBytes, else
// DefaultMaxLogBytes.
func (r *runner) logLimit() int64 {
	if r.o.MaxOutputBytes > 0 {
		return r.o.MaxOutputBytes
	}
	return DefaultMaxLogBytes
}

// cappedLog creates (flag os.O_TRUNC) or appends to (os.O_APPEND) the
// log file in the run directory, storing at most limit bytes and ending
// it with capped.Marker (the count of dropped bytes) when more came.
func (r *runner) cappedLog(file, name string, limit int64, flag int) (*capped.Writer, error) {
	f, err := os.OpenFile(filepath.Join(r.o.Dir, file), os.O_WRONLY|os.O_CREATE|flag, 0o644)
	if err != nil {
		return nil, err
	}
	return capped.NewWriter(f, name, limit, nil), nil
}

// closeLog closes a capped log, logging what it dropped.
func (r *runner) closeLog(w *capped.Writer) {
	if err := w.Close(); err != nil {
		r.log.Error("run log", zap.Error(err))
	}
	if n := w.Dropped(); n > 0 {
		r.log.Warn("run log truncated", zap.Int64("dropped_bytes", n))
	}
}
