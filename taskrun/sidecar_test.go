package taskrun

import (
	"reflect"
	"testing"

	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/tasks"
)

func TestSidecarArgv(t *testing.T) {
	img := env.ImageConfig{Entrypoint: []string{"/entry"}, Cmd: []string{"serve"}}
	for _, tt := range []struct {
		sc   tasks.Sidecar
		want []string
	}{
		{tasks.Sidecar{}, []string{"/entry", "serve"}},
		{tasks.Sidecar{Command: []string{"run"}}, []string{"/entry", "run"}},
		{tasks.Sidecar{Entrypoint: []string{"/other"}}, []string{"/other"}},
		{tasks.Sidecar{Entrypoint: []string{"/other"}, Command: []string{"x"}}, []string{"/other", "x"}},
	} {
		if got := sidecarArgv(tt.sc, img); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%+v: %v, want %v", tt.sc, got, tt.want)
		}
	}
}
