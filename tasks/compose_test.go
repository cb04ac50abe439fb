package tasks

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
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
	got, err := ParseCompose("c.yaml", []byte(good))
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
	if got, err := ParseCompose("c.yaml", []byte("services:\n  app: {build: .}\n  sink: {build: ./sink}\n")); err != nil || len(got) != 1 || got[0].Name != "sink" {
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
		_, err := ParseCompose("c.yaml", []byte(doc))
		var ce *ComposeError
		if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), "c.yaml: ") {
			t.Errorf("%s: want a ComposeError, got %v", name, err)
		}
	}
}

// TestCheckNamesUnsupportedCompose: tasks check names what a run would
// refuse in the compose file; the compose fixture is clean.
func TestCheckNamesUnsupportedCompose(t *testing.T) {
	if _, ps := Check(filepath.Join(fixtures, "harbor-compose-sink")); len(ps) != 0 {
		t.Fatalf("compose fixture: %v", ps)
	}
	dir := copyFixture(t, "harbor-compose-sink")
	write(t, dir, "environment/docker-compose.yaml", "services:\n  main: {build: .}\n  leak_sink: {build: ./sink, ports: [\"8080:8080\"]}\n")
	_, ps := Check(dir)
	if len(ps) != 1 || ps[0].File != "environment/docker-compose.yaml" || ps[0].Field != "leak_sink" || !strings.Contains(ps[0].Msg, `"ports" is not supported`) {
		t.Fatalf("problems = %v", ps)
	}
}
