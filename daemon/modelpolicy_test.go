package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/authbench/authbench/agent/agenttest"
	"github.com/authbench/authbench/agent/modelconfig"
	"github.com/authbench/authbench/runapi"
)

func modelTaskRequest(dir, baseURL string, maxTurns int) *runapi.RunRequest {
	return &runapi.RunRequest{Task: &runapi.TaskRequest{Dir: dir, PolicySource: "unconstrained", Agent: "openai:m",
		Model: &modelconfig.Config{BaseURL: baseURL, Model: "m", MaxTurns: maxTurns}}}
}

// TestEscapeDaemonMemberModelEndpoint: a member's task run or
// generation naming a base_url the config does not list, or more turns
// than it allows, is a 403 naming the rule, and the server at that
// address receives no connection; a listed endpoint passes with the
// members' limits; root is not bound.
func TestEscapeDaemonMemberModelEndpoint(t *testing.T) {
	requireRoot(t)
	root := trustedTree(t)
	task := filepath.Join(root, "suite", "hello")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			c.Close()
		}
	}()
	unlisted := "http://" + ln.Addr().String() + "/v1"
	listed := "http://127.0.0.1:9/v1"
	pol := modelconfig.MemberPolicy{AllowedBaseURLs: []string{listed}, MaxTurns: 50}
	d := startTestDaemon(t, Config{Self: testBinary, TrustedTaskRoots: []string{root}, MemberModels: pol}, "nogroup")

	gen := &runapi.RunRequest{Generate: &runapi.GenerateRequest{Dir: task, Generator: "openai:m", Model: &modelconfig.Config{BaseURL: unlisted}}}
	cases := []struct {
		name string
		req  *runapi.RunRequest
		rule string
		says string
	}{
		{"task run, unlisted", modelTaskRequest(task, unlisted, 0), RuleModelEndpoint, unlisted},
		{"generation, unlisted", gen, RuleModelEndpoint, "allowed_base_urls"},
		{"dot segments out of a listed one", modelTaskRequest(task, listed+"/../admin", 0), RuleModelEndpoint, "dot segments"},
		{"10 000 turns", modelTaskRequest(task, listed, 10_000), RuleModelLimits, "member_max_turns"},
	}
	for _, c := range cases {
		body, _ := json.Marshal(c.req)
		code, resp := rawRequest(t, d.socket, 65534, 65534, "POST", "/v1/runs", string(body))
		var er runapi.ErrorResponse
		json.Unmarshal([]byte(resp), &er)
		if code != http.StatusForbidden || er.Rule != c.rule || !strings.Contains(er.Error, c.says) {
			t.Errorf("%s: HTTP %d %s", c.name, code, resp)
		}
	}
	ln.Close()
	if n := conns.Load(); n != 0 {
		t.Errorf("the unlisted endpoint got %d connections", n)
	}

	prep, err := validate(modelTaskRequest(task, listed+"/", 0), member, []string{root}, testWork)
	if err == nil {
		err = prep.limitMemberModel(member, pol)
	}
	if err != nil || prep.state.(*taskPrepared).model.MaxTurns != modelconfig.DefaultMaxTurns || prep.req.Task.Model.MaxHistoryBytes != modelconfig.DefaultMaxHistoryBytes {
		t.Fatalf("listed endpoint: %v", err)
	}
	rootPeer := Peer{PID: 1}
	prep, err = validate(modelTaskRequest(task, unlisted, 10_000), rootPeer, nil, testWork)
	if err == nil {
		err = prep.limitMemberModel(rootPeer, pol)
	}
	var fe *ForbiddenError
	if err != nil || errors.As(err, &fe) {
		t.Fatalf("root: %v", err)
	}
}

// TestMemberModelListedEndpointWorks: a member's task run whose model
// endpoint the config lists runs, with the members' default turns.
func TestMemberModelListedEndpointWorks(t *testing.T) {
	requireRoot(t)
	root := trustedTree(t)
	cmd, _ := json.Marshal(map[string]string{"command": "wc -l < /app/input.txt | tr -d ' ' > /app/count.txt"})
	srv := agenttest.New(t,
		agenttest.Reply{ToolCalls: []agenttest.Call{{ID: "a", Name: "shell", Arguments: string(cmd)}}},
		agenttest.Reply{ToolCalls: []agenttest.Call{{ID: "b", Name: "finish", Arguments: `{"summary": "counted"}`}}},
	)
	d, _ := startTaskDaemon(t, Config{TrustedTaskRoots: []string{root}, MemberModels: modelconfig.MemberPolicy{AllowedBaseURLs: []string{srv.URL}, MaxTurns: 5}})
	run, err := d.m.Submit(modelTaskRequest(filepath.Join(root, "suite", "hello"), srv.URL, 0), member)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	run, err = d.m.Wait(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	res := run.TaskResult
	if run.State != runapi.StateSucceeded || res == nil || res.AgentStopReason != "finished" || len(srv.Requests()) != 2 {
		t.Fatalf("run %+v, result %+v, %d model requests", run, res, len(srv.Requests()))
	}
	if m := run.Request.Task.Model; m == nil || m.MaxTurns != 5 || res.Model == nil || res.Model.MaxTurns != 5 {
		t.Errorf("recorded model %+v, result model %+v: want the members' 5 turns", m, res.Model)
	}
}
