package daemon

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/authbench/authbench/runapi"
)

// TestEveryKindHasItsOwnState: validate returns each kind's own state
// type, whose request is the prepared (recorded) one, and the shared
// prepared struct holds only the request, the kind and that state: a
// kind's parsed parts are no field of it.
func TestEveryKindHasItsOwnState(t *testing.T) {
	task, err := filepath.Abs(fixtureTask)
	if err != nil {
		t.Fatal(err)
	}
	want := map[runapi.Kind]kindState{
		runapi.KindExec: &execPrepared{}, runapi.KindTask: &taskPrepared{},
		runapi.KindGenerate: &generatePrepared{}, runapi.KindBuild: &buildPrepared{},
	}
	seen := map[reflect.Type]runapi.Kind{}
	for kind, req := range kindRequests(task) {
		p, err := validate(&req, Peer{PID: 1}, nil, testWork)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		st := reflect.TypeOf(p.state)
		if st != reflect.TypeOf(want[kind]) {
			t.Errorf("%s validated to state %v, want %T", kind, st, want[kind])
		}
		if other, ok := seen[st]; ok {
			t.Errorf("%s and %s share state type %v", kind, other, st)
		}
		seen[st] = kind
		var rec recorded
		switch s := p.state.(type) {
		case *execPrepared:
			rec = s.recorded
		case *taskPrepared:
			rec = s.recorded
		case *generatePrepared:
			rec = s.recorded
		case *buildPrepared:
			rec = s.recorded
		}
		if rec.req != &p.req {
			t.Errorf("%s: the state's request is not the recorded one", kind)
		}
	}
	var names []string
	for f := range reflect.TypeFor[prepared]().Fields() {
		names = append(names, f.Name)
	}
	if !reflect.DeepEqual(names, []string{"req", "kind", "state"}) {
		t.Errorf("prepared holds %v: a kind's parsed parts belong in its own state type", names)
	}
	ex := runapi.RunRequest{Exec: &runapi.ExecRequest{Command: []string{"/bin/true"}, UID: uid(65534), GID: uid(4242)}}
	p, err := validate(&ex, Peer{PID: 1}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if u, g := p.state.identity(); u != 65534 || g != 4242 {
		t.Errorf("command identity %d:%d, want 65534:4242", u, g)
	}
	if p.state.memberModel() != nil {
		t.Error("a command takes a model")
	}
}
