package cli

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"

	"github.com/authbench/authbench/cli/core"
	"github.com/authbench/authbench/daemon"
)

// interruptContext is a context that ends at the first SIGINT or SIGTERM
// with a *daemon.SignalError cause; stop releases the signals. Commands
// that wait for daemon runs (task run, generate, bench) use it, so that a
// run through a socket is cancelled when its caller is interrupted, as
// an embedded run ends with its process (runapi.WaitOrCancel).
func interruptContext() (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			cancel(&daemon.SignalError{Signal: s.(syscall.Signal)})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}

// interrupted gives an error caused by an interrupting signal the exit
// status of that signal's default action (128+N), embedded and through a
// socket alike.
func interrupted(err error) error {
	var se *daemon.SignalError
	if errors.As(err, &se) {
		return &core.ExitError{Code: se.ExitStatus(), Err: err}
	}
	return err
}
