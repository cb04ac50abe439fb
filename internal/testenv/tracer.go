package testenv

import (
	"sync"
	"testing"

	"go.uber.org/zap"

	"github.com/authbench/authbench/tracer"
)

var (
	tracerOnce sync.Once
	sharedTr   *tracer.Tracer
	tracerErr  error
)

// Tracer is the eBPF tracer, loaded once per test binary and kept until
// it exits; a failure to load it fails t.
func Tracer(t testing.TB) *tracer.Tracer {
	t.Helper()
	tracerOnce.Do(func() { sharedTr, tracerErr = tracer.Load(tracer.Options{}, zap.NewNop()) })
	if tracerErr != nil {
		t.Fatal(tracerErr)
	}
	return sharedTr
}
