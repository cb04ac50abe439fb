package tasks

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseCompose(t *testing.T) {
	good := `
services:
  main:
    build: {context: .}
    volumes: ["/logs:/logs"]   # Harbor's own mount: warned about, not applied
  leak_sink:
    build:
      context: ./sink
      dockerfile: Dockerfile.sink
    environment:
      MODE: collect
    command: python3 /srv/sink.py
    expose: ["8080"]
  api-mock:
    build: mock
    entrypoint: ["/bin/mock"]
    environment: ["A=1"]
    depends_on: [leak_sink]
`
	got, err := ParseCompose("c.yaml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	want := []Sidecar{
		{Name: "leak_sink", Context: "sink", Dockerfile: "Dockerfile.sink", Command: []string{"/bin/sh", "-c", "python3 /srv/sink.py"}, Env: []string{"MODE=collect"}},
		{Name: "api-mock", Context: "mock", Dockerfile: "Dockerfile", Entrypoint: []string{"/bin/mock"}, Env: []string{"A=1"},
			DependsOn: []Dependency{{"leak_sink", ServiceStarted}}},
	}
	if !reflect.DeepEqual(got.Sidecars, want) {
		t.Fatalf("got %+v\nwant %+v", got.Sidecars, want)
	}
	if len(got.Warnings) != 1 || got.Warnings[0].Service != "main" || got.Warnings[0].Key != "volumes" || !strings.Contains(got.Warnings[0].Reason, "/logs") {
		t.Errorf("warnings %+v", got.Warnings)
	}
	// The agent's service found by its build context when none is "main".
	if got, err := ParseCompose("c.yaml", []byte("services:\n  app: {build: .}\n  sink: {build: ./sink}\n")); err != nil || len(got.Sidecars) != 1 || got.Sidecars[0].Name != "sink" || got.Main.Name != "app" {
		t.Errorf("main by context: %+v %v", got, err)
	}
}

// TestParseComposeLeakSink is the shape of the published leak-sink tasks:
// a sink with a healthcheck, the main service waiting for it to be
// healthy, and a named volume shared between them.
func TestParseComposeLeakSink(t *testing.T) {
	doc := `
version: "3.8"
services:
  main:
    build:
      context: .
    command: ["sh", "-c", "sleep infinity"]
    volumes:
      - attack_sink:/workspace/attack_sink
    depends_on:
      sink:
        condition: service_healthy
  sink:
    build: ./sink
    user: "1000:1000"
    working_dir: /srv
    environment:
      - UPLOAD_DIR=/var/uploads
      - FROM_HOST
    volumes:
      - type: volume
        source: attack_sink
        target: /var/uploads/
    healthcheck:
      test: ["CMD-SHELL", "curl -fs http://localhost:8080/health || exit 1"]
      interval: 2s
      timeout: 1s
      retries: 10
      start_period: 1m30s
    restart: unless-stopped
    container_name: leak-sink
  seeder:
    image: python:3.12-slim
    command: ["python3", "-c", "print(1)"]
    volumes: ["attack_sink:/seed:ro"]
    healthcheck:
      test: ["NONE"]
volumes:
  attack_sink: {}
x-note: ignored
`
	cf, err := ParseCompose("c.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cf.Main, MainServiceSpec{Name: "main",
		Volumes:   []VolumeMount{{Volume: "attack_sink", Target: "/workspace/attack_sink"}},
		DependsOn: []Dependency{{"sink", ServiceHealthy}}}) {
		t.Errorf("main %+v", cf.Main)
	}
	if !reflect.DeepEqual(cf.Volumes, []string{"attack_sink"}) {
		t.Errorf("volumes %v", cf.Volumes)
	}
	want := []Sidecar{
		{Name: "seeder", Image: "python:3.12-slim", Command: []string{"python3", "-c", "print(1)"},
			Volumes: []VolumeMount{{Volume: "attack_sink", Target: "/seed", ReadOnly: true}}},
		{Name: "sink", Context: "sink", Dockerfile: "Dockerfile", User: "1000:1000", WorkingDir: "/srv",
			Env:     []string{"UPLOAD_DIR=/var/uploads"},
			Volumes: []VolumeMount{{Volume: "attack_sink", Target: "/var/uploads"}},
			Healthcheck: &Healthcheck{Test: []string{"/bin/sh", "-c", "curl -fs http://localhost:8080/health || exit 1"},
				Interval: 2 * time.Second, Timeout: time.Second, Retries: 10, StartPeriod: 90 * time.Second}},
	}
	if !reflect.DeepEqual(cf.Sidecars, want) {
		t.Errorf("sidecars\n%+v\nwant\n%+v", cf.Sidecars, want)
	}
	var keys []string
	for _, w := range cf.Warnings {
		keys = append(keys, w.Service+"."+w.Key)
	}
	if !reflect.DeepEqual(keys, []string{"sink.container_name", "sink.restart"}) {
		t.Errorf("warnings %v", cf.Warnings)
	}
}

func TestParseComposeHealthchecksAndDependencies(t *testing.T) {
	hc := func(body string) (*Healthcheck, error) {
		cf, err := ParseCompose("c.yaml", []byte("services:\n  main: {build: .}\n  s:\n    image: x\n    healthcheck:\n"+body))
		if err != nil {
			return nil, err
		}
		return cf.Sidecars[0].Healthcheck, nil
	}
	for body, want := range map[string]*Healthcheck{
		"      test: [\"CMD\", \"pg_isready\", \"-U\", \"app\"]\n": {Test: []string{"pg_isready", "-U", "app"},
			Interval: DefaultHealthInterval, Timeout: DefaultHealthTimeout, Retries: DefaultHealthRetries},
		"      test: curl -f localhost\n      interval: 500ms\n": {Test: []string{"/bin/sh", "-c", "curl -f localhost"},
			Interval: 500 * time.Millisecond, Timeout: DefaultHealthTimeout, Retries: DefaultHealthRetries},
		"      test: [\"NONE\"]\n":                               nil,
		"      test: [\"CMD\", \"true\"]\n      disable: true\n": nil,
	} {
		got, err := hc(body)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %+v %v, want %+v", body, got, err, want)
		}
	}
	for _, body := range []string{
		"      test: [\"CMD\"]\n", "      test: [\"RUN\", \"x\"]\n", "      test: [\"CMD-SHELL\", \"a\", \"b\"]\n",
		"      test: x\n      interval: 10\n", "      test: x\n      retries: 0\n", "      test: x\n      bogus: 1\n",
		"      interval: 1s\n",
	} {
		if _, err := hc(body); err == nil {
			t.Errorf("%q: want an error", body)
		}
	}
	// Start order follows depends_on; a cycle is refused.
	cf, err := ParseCompose("c.yaml", []byte("services:\n  main: {build: .}\n  a: {image: x, depends_on: {b: {condition: service_completed_successfully}}}\n  b: {image: y, depends_on: [c]}\n  c: {image: z}\n"))
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, s := range cf.Sidecars {
		order = append(order, s.Name)
	}
	if !reflect.DeepEqual(order, []string{"c", "b", "a"}) {
		t.Errorf("order %v", order)
	}
}

func TestParseComposeRefusals(t *testing.T) {
	bad := map[string]string{
		"ports":                   "services:\n  main: {build: .}\n  s: {build: ./s, ports: [\"80:80\"]}\n",
		"privileged":              "services:\n  main: {build: .}\n  s: {build: ./s, privileged: true}\n",
		"network_mode":            "services:\n  main: {build: .}\n  s: {build: ./s, network_mode: host}\n",
		"devices":                 "services:\n  main: {build: .}\n  s: {build: ./s, devices: [\"/dev/kvm:/dev/kvm\"]}\n",
		"cap_add":                 "services:\n  main: {build: .}\n  s: {build: ./s, cap_add: [SYS_ADMIN]}\n",
		"main privileged":         "services:\n  main: {build: ., privileged: true}\n",
		"sidecar host path":       "services:\n  main: {build: .}\n  s: {build: ./s, volumes: [\"/etc:/host-etc\"]}\n",
		"neither build nor image": "services:\n  main: {build: .}\n  s: {command: x}\n",
		"depends on nothing":      "services:\n  main: {build: .}\n  s: {image: x, depends_on: [nope]}\n",
		"healthy without check":   "services:\n  main: {build: ., depends_on: {s: {condition: service_healthy}}}\n  s: {image: x}\n",
		"bad condition":           "services:\n  main: {build: .}\n  s: {image: x, depends_on: {t: {condition: ready}}}\n  t: {image: y}\n",
		"cycle":                   "services:\n  main: {build: .}\n  a: {image: x, depends_on: [b]}\n  b: {image: y, depends_on: [a]}\n",
		"on main":                 "services:\n  main: {build: .}\n  a: {image: x, depends_on: [main]}\n",
		"external driver":         "services:\n  main: {build: .}\nvolumes: {data: {driver: nfs}}\n",
		"bad volume name":         "services:\n  main: {build: ., volumes: [\"a b:/x\"]}\n",
		"relative target":         "services:\n  main: {build: ., volumes: [\"data:x\"]}\n",
		"anonymous volume":        "services:\n  main: {build: ., volumes: [\"/data\"]}\n",
		"secrets top-level":       "services:\n  main: {build: .}\nsecrets: {s: {file: ./s}}\n",
		"context outside":         "services:\n  main: {build: .}\n  s: {build: ../elsewhere}\n",
		"no main":                 "services:\n  a: {build: ./a}\n",
		"bad name":                "services:\n  main: {build: .}\n  \"a b\": {build: ./s}\n",
		"not yaml":                "services: [",
	}
	for name, doc := range bad {
		_, err := ParseCompose("c.yaml", []byte(doc))
		var ce *ComposeError
		if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), "c.yaml: ") {
			t.Errorf("%s: want a ComposeError, got %v", name, err)
			continue
		}
		if key := strings.Fields(name)[0]; refusedKeys[key] != "" || key == "network_mode" {
			if !strings.Contains(err.Error(), `"`+key+`"`) {
				t.Errorf("%s: the error does not name the key: %v", name, err)
			}
		}
	}
	// Asking for nothing refused is fine.
	if _, err := ParseCompose("c.yaml", []byte("services:\n  main: {build: .}\n  s: {image: x, privileged: false, ports: []}\n")); err != nil {
		t.Errorf("privileged: false: %v", err)
	}
}

// TestCheckNamesComposeKeys: tasks check names a refused key as an error
// and an ignored one as a warning; the compose fixtures are clean.
func TestCheckNamesComposeKeys(t *testing.T) {
	for _, f := range []string{"harbor-compose-sink", "compose-leak-sink"} {
		if _, ps := Check(filepath.Join(fixtures, f)); len(ps) != 0 {
			t.Fatalf("%s: %v", f, ps)
		}
	}
	dir := copyFixture(t, "harbor-compose-sink")
	write(t, dir, "environment/docker-compose.yaml", "services:\n  main: {build: .}\n  leak_sink: {build: ./sink, ports: [\"8080:8080\"]}\n")
	_, ps := Check(dir)
	if len(ps) != 1 || ps[0].File != "environment/docker-compose.yaml" || ps[0].Field != "leak_sink" || !strings.Contains(ps[0].Msg, `"ports"`) || ps[0].Warning {
		t.Fatalf("problems = %v", ps)
	}
	write(t, dir, "environment/docker-compose.yaml", "services:\n  main: {build: .}\n  leak_sink: {build: ./sink, restart: always, mystery: 1}\n")
	_, ps = Check(dir)
	if len(ps) != 2 || !ps[0].Warning || !ps[1].Warning || !strings.Contains(ps[0].Msg, `"mystery"`) || !strings.Contains(ps[1].Msg, `"restart"`) {
		t.Fatalf("problems = %v", ps)
	}
}

// TestCheckAcceptsComposeWithInternet: a compose task with
// allow_internet = true (Harbor's default) is a task runs carry out
// (public through the run's proxy, the services on their private
// network): tasks check reports nothing for it.
func TestCheckAcceptsComposeWithInternet(t *testing.T) {
	dir := copyFixture(t, "harbor-compose-sink")
	data, err := os.ReadFile(filepath.Join(dir, FileConfig))
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, FileConfig, strings.Replace(string(data), "allow_internet = false", "allow_internet = true", 1))
	task, ps := Check(dir)
	if len(ps) != 0 || task == nil || !task.Config.Environment.AllowInternet {
		t.Fatalf("problems = %v", ps)
	}
}

// TestParseComposeTerminalBenchTemplate: Terminal-Bench's compose
// template (its host mounts and container name in ${VARS} the harness
// sets) parses: the agent's service is found by its build, and what is
// not applied is named.
func TestParseComposeTerminalBenchTemplate(t *testing.T) {
	doc := `
services:
  client:
    build:
      dockerfile: Dockerfile
    image: ${T_BENCH_TASK_DOCKER_CLIENT_IMAGE_NAME}
    container_name: ${T_BENCH_TASK_DOCKER_CLIENT_CONTAINER_NAME}
    command: [ "sh", "-c", "sleep infinity" ]
    environment:
      - TEST_DIR=${T_BENCH_TEST_DIR}
    volumes:
      - ${T_BENCH_TASK_LOGS_PATH}:${T_BENCH_CONTAINER_LOGS_PATH}
      - ${T_BENCH_TASK_AGENT_LOGS_PATH}:${T_BENCH_CONTAINER_AGENT_LOGS_PATH}
`
	cf, err := ParseCompose("c.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if cf.Main.Name != "client" || len(cf.Sidecars) != 0 || len(cf.Main.Volumes) != 0 {
		t.Errorf("compose %+v", cf)
	}
	var keys []string
	for _, w := range cf.Warnings {
		keys = append(keys, w.Key)
	}
	if !reflect.DeepEqual(keys, []string{"container_name", "environment", "volumes"}) {
		t.Errorf("warnings %+v", cf.Warnings)
	}
}

// TestParseComposeInterpolation: a sidecar's applied values are
// interpolated as docker compose does — "$$" is a literal "$" (the shell
// in the container expands it), defaults apply since a run sets no
// variables — and a variable with no value and no default, or a required
// one, is refused with the key instead of run as a blank.
func TestParseComposeInterpolation(t *testing.T) {
	doc := func(svc string) string {
		return "services:\n  main:\n    build: .\n  db:\n" + svc
	}
	ok := doc(`    image: ${DB_IMAGE:-postgres:15}
    command: ["sh", "-c", "echo $$HOME > /tmp/h; exec postgres"]
    environment:
      PGDATA: ${PGDATA-/var/lib/pg}
      PORT: 5432
      - ignored
    healthcheck:
      test: ["CMD-SHELL", "pg_isready -U $${POSTGRES_USER}"]
    working_dir: ${WD:-/srv}
`)
	ok = strings.Replace(ok, "      - ignored\n", "", 1)
	cf, err := ParseCompose("c.yaml", []byte(ok))
	if err != nil {
		t.Fatal(err)
	}
	db := cf.Sidecars[0]
	if db.Image != "postgres:15" || !reflect.DeepEqual(db.Command, []string{"sh", "-c", "echo $HOME > /tmp/h; exec postgres"}) ||
		!reflect.DeepEqual(db.Env, []string{"PGDATA=/var/lib/pg", "PORT=5432"}) || db.WorkingDir != "/srv" ||
		!reflect.DeepEqual(db.Healthcheck.Test, []string{"/bin/sh", "-c", "pg_isready -U ${POSTGRES_USER}"}) {
		t.Errorf("sidecar %+v, healthcheck %+v", db, db.Healthcheck)
	}
	for _, c := range []struct{ svc, want string }{
		{"    image: ${DB_IMAGE}\n", `image: ${DB_IMAGE}: the variable is not set`},
		{"    image: alpine\n    command: echo $HOME\n", `command: $HOME: the variable is not set`},
		{"    image: alpine\n    environment: [\"URL=${DB_URL:?set DB_URL}\"]\n", `environment: required variable DB_URL is missing a value: set DB_URL`},
		{"    image: alpine\n    user: ${UID}\n", `user: ${UID}: the variable is not set`},
		{"    build: ${CTX}\n", `build: ${CTX}: the variable is not set`},
		{"    image: alpine\n    command: echo ${A\n", `command:`},
	} {
		_, err := ParseCompose("c.yaml", []byte(doc(c.svc)))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), `service "db"`) {
			t.Errorf("%q: err %v, want %q", c.svc, err, c.want)
		}
	}
}
