package daemon

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/authbench/authbench/runapi"
)

// TestRunsAreVisibleToTheirOwnersOnly: two members of the daemon's group
// (uids 65534 and 1) see, follow and cancel only their own runs; the
// other's run answers exactly like a missing one; root sees and may
// cancel every run; the request's env is returned to its owner.
func TestRunsAreVisibleToTheirOwnersOnly(t *testing.T) {
	requireRoot(t)
	d := startTestDaemon(t, Config{Self: testBinary}, "nogroup")
	const alice, bob, group = 65534, 1, 65534
	code, body := rawRequest(t, d.socket, alice, group, "POST", "/v1/runs", `{"exec":{"command":["/bin/sleep","30"],"env":["API_KEY=s3cret","PATH=/usr/bin:/bin"]}}`)
	if code != http.StatusCreated {
		t.Fatalf("alice's run: HTTP %d %s", code, body)
	}
	var aliceRun runapi.Run
	if err := json.Unmarshal([]byte(body), &aliceRun); err != nil {
		t.Fatal(err)
	}
	if aliceRun.CallerUID != alice || aliceRun.CallerGID != group || aliceRun.CallerPID <= 0 {
		t.Fatalf("caller identity not recorded: uid %d gid %d pid %d", aliceRun.CallerUID, aliceRun.CallerGID, aliceRun.CallerPID)
	}
	rootRun, err := d.client.Submit(context.Background(), &runapi.RunRequest{Exec: &runapi.ExecRequest{Command: []string{"/bin/true"}, Env: []string{"ROOT_KEY=x"}, UID: uid(65534), GID: uid(65534)}})
	if err != nil {
		t.Fatal(err)
	}
	const missing = "20260101T000000-0000000000000000"
	missCode, missBody := rawRequest(t, d.socket, bob, group, "GET", "/v1/runs/"+missing, "")
	if missCode != http.StatusNotFound {
		t.Fatalf("missing run: HTTP %d %s", missCode, missBody)
	}
	for _, id := range []string{aliceRun.ID, rootRun.ID} {
		for _, req := range [][2]string{{"GET", "/v1/runs/" + id}, {"GET", "/v1/runs/" + id + "/stdout"}, {"GET", "/v1/runs/" + id + "/events?follow=1"}, {"DELETE", "/v1/runs/" + id}} {
			code, body := rawRequest(t, d.socket, bob, group, req[0], req[1], "")
			if code != missCode || body != missBody {
				t.Errorf("bob %s %s: HTTP %d %s; want the answer for a missing run, HTTP %d %s", req[0], req[1], code, body, missCode, missBody)
			}
		}
	}
	if run, err := d.m.Get(aliceRun.ID); err != nil || run.State.Terminal() {
		t.Fatalf("bob's DELETE ended alice's run: %+v %v", run, err)
	}
	code, body = rawRequest(t, d.socket, bob, group, "GET", "/v1/runs", "")
	if code != http.StatusOK || strings.Contains(body, aliceRun.ID) || strings.Contains(body, rootRun.ID) || strings.Contains(body, "s3cret") {
		t.Fatalf("bob's list shows others' runs: HTTP %d %s", code, body)
	}
	code, body = rawRequest(t, d.socket, alice, group, "GET", "/v1/runs", "")
	var list []runapi.Run
	if err := json.Unmarshal([]byte(body), &list); code != http.StatusOK || err != nil || len(list) != 1 || list[0].ID != aliceRun.ID {
		t.Fatalf("alice's list: HTTP %d %s", code, body)
	}
	if !reflect.DeepEqual(list[0].Request.Exec.Env, []string{"API_KEY=s3cret", "PATH=/usr/bin:/bin"}) {
		t.Fatalf("alice should see her run's env: %q", list[0].Request.Exec.Env)
	}
	all, err := d.client.List(context.Background())
	if err != nil || len(all) != 2 {
		t.Fatalf("root's list: %d runs, %v", len(all), err)
	}
	code, body = rawRequest(t, d.socket, alice, group, "DELETE", "/v1/runs/"+aliceRun.ID, "")
	if code != http.StatusOK || !strings.Contains(body, `"state":"cancelled"`) {
		t.Fatalf("alice cancelling her run: HTTP %d %s", code, body)
	}
}

func TestViewForRedactsOthersEnv(t *testing.T) {
	r := &runapi.Run{CallerUID: 5, Request: runapi.RunRequest{Exec: &runapi.ExecRequest{Env: []string{"API_KEY=s3cret", "EMPTY=", "A=b=c"}}}}
	tests := []struct {
		viewer uint32
		want   []string
	}{
		{5, []string{"API_KEY=s3cret", "EMPTY=", "A=b=c"}},
		{0, []string{"API_KEY=s3cret", "EMPTY=", "A=b=c"}},
		{6, []string{"API_KEY=<redacted>", "EMPTY=<redacted>", "A=<redacted>"}},
	}
	for _, tt := range tests {
		got := viewFor(Peer{UID: tt.viewer}, r).Request.Exec.Env
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("viewer %d: %q, want %q", tt.viewer, got, tt.want)
		}
	}
	if r.Request.Exec.Env[0] != "API_KEY=s3cret" {
		t.Fatal("viewFor changed the record")
	}
}
