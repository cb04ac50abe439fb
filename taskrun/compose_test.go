package taskrun

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/authbench/authbench/env"
)

func TestParseCompose(t *testing.T) {
	good := `
services:
  main:
    build: {context: .}
    volumes: ["/logs:/logs"]   # the agent's own service: described by the Dockerfile and task.toml
  leak_sink:
    build:
      context: ./sink
      dockerfile: Dockerfile.sink
    environment:
      MODE: collect
    command: python3 /srv/sink.py
    depends_on: [main]
    expose: ["8080"]
  api-mock:
    build: mock
    entrypoint: ["/bin/mock"]
    environment: ["A=1"]
`
	got, err := parseCompose("c.yaml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	want := []Sidecar{
		{Name: "api-mock", Context: "mock", Dockerfile: "Dockerfile", Entrypoint: []string{"/bin/mock"}, Env: []string{"A=1"}},
		{Name: "leak_sink", Context: "sink", Dockerfile: "Dockerfile.sink", Command: []string{"/bin/sh", "-c", "python3 /srv/sink.py"}, Env: []string{"MODE=collect"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	// The agent's service found by its build context when none is "main".
	if got, err := parseCompose("c.yaml", []byte("services:\n  app: {build: .}\n  sink: {build: ./sink}\n")); err != nil || len(got) != 1 || got[0].Name != "sink" {
		t.Errorf("main by context: %+v %v", got, err)
	}
	bad := map[string]string{
		"ports":               "services:\n  main: {build: .}\n  s: {build: ./s, ports: [\"80:80\"]}\n",
		"image without build": "services:\n  main: {build: .}\n  s: {image: redis}\n",
		"volumes top-level":   "services:\n  main: {build: .}\nvolumes: {data: {}}\n",
		"context outside":     "services:\n  main: {build: .}\n  s: {build: ../elsewhere}\n",
		"no main":             "services:\n  a: {build: ./a}\n",
		"bad name":            "services:\n  main: {build: .}\n  \"a b\": {build: ./s}\n",
		"not yaml":            "services: [",
	}
	for name, doc := range bad {
		_, err := parseCompose("c.yaml", []byte(doc))
		var ce *ComposeError
		if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), "c.yaml: ") {
			t.Errorf("%s: want a ComposeError, got %v", name, err)
		}
	}
}

func TestSidecarArgv(t *testing.T) {
	img := imageCfg([]string{"/entry"}, []string{"serve"})
	for _, tt := range []struct {
		sc   Sidecar
		want []string
	}{
		{Sidecar{}, []string{"/entry", "serve"}},
		{Sidecar{Command: []string{"run"}}, []string{"/entry", "run"}},
		{Sidecar{Entrypoint: []string{"/other"}}, []string{"/other"}},
		{Sidecar{Entrypoint: []string{"/other"}, Command: []string{"x"}}, []string{"/other", "x"}},
	} {
		if got := sidecarArgv(tt.sc, img); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%+v: %v, want %v", tt.sc, got, tt.want)
		}
	}
}

func imageCfg(entry, cmd []string) env.ImageConfig {
	return env.ImageConfig{Entrypoint: entry, Cmd: cmd}
}
