package runbox

import (
	"os"
	"path/filepath"

	"go.uber.org/zap"

	"github.com/authbench/authbench/internal/capped"
)

// DefaultMaxLogBytes caps each log a run stores of what task code writes
// (agent and verifier output, build log) when Box.MaxOutputBytes is
// not set.
const DefaultMaxLogBytes = 64 << 20

// LogLimit is the cap of each stored log: Box.MaxOutputBytes, else
// DefaultMaxLogBytes.
func (b *Box) LogLimit() int64 {
	if b.MaxOutputBytes > 0 {
		return b.MaxOutputBytes
	}
	return DefaultMaxLogBytes
}

// CappedLog creates (flag os.O_TRUNC) or appends to (os.O_APPEND) the
// log file in the run directory, storing at most limit bytes and ending
// it with capped.Marker (the count of dropped bytes) when more came.
func (b *Box) CappedLog(file, name string, limit int64, flag int) (*capped.Writer, error) {
	f, err := os.OpenFile(filepath.Join(b.Dir, file), os.O_WRONLY|os.O_CREATE|flag, 0o644)
	if err != nil {
		return nil, err
	}
	return capped.NewWriter(f, name, limit, nil), nil
}

// CloseLog closes a capped log, logging what it dropped.
func (b *Box) CloseLog(w *capped.Writer) {
	if err := w.Close(); err != nil {
		b.Log.Error("run log", zap.Error(err))
	}
	if n := w.Dropped(); n > 0 {
		b.Log.Warn("run log truncated", zap.Int64("dropped_bytes", n))
	}
}
