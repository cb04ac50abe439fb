package runapi

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// TestKindOf: a kind survives wrapping, the innermost kind wins, context
// endings have their kinds, and an unmarked error is internal.
func TestKindOf(t *testing.T) {
	build := WithKind(ErrorBuild, errors.New("buildah: exit 1"))
	for _, c := range []struct {
		err  error
		want ErrorKind
	}{
		{nil, ""},
		{build, ErrorBuild},
		{fmt.Errorf("task t: %w", build), ErrorBuild},
		{WithKind(ErrorRootfs, fmt.Errorf("wrapped: %w", build)), ErrorBuild},
		{errors.Join(errors.New("x"), WithKind(ErrorSidecar, errors.New("db"))), ErrorSidecar},
		{fmt.Errorf("ended: %w", context.DeadlineExceeded), ErrorAgentTimeout},
		{fmt.Errorf("ended: %w", context.Canceled), ErrorCancelled},
		{errors.New("something"), ErrorInternal},
	} {
		if got := KindOf(c.err); got != c.want {
			t.Errorf("KindOf(%v) = %q, want %q", c.err, got, c.want)
		}
	}
	if WithKind(ErrorBuild, nil) != nil {
		t.Error("WithKind(nil) is not nil")
	}
	if build.Error() != "buildah: exit 1" {
		t.Errorf("message changed: %q", build.Error())
	}
}
