package trial

import (
	"testing"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/runapi"
)

// TestFillScoreNetwork: a run of a task whose spec scores the network
// axis records that axis (0 for an invalid policy); other runs do not.
func TestFillScoreNetwork(t *testing.T) {
	netSpec, err := policy.ParseSpec([]byte(`{"required_permissions": {"read": [], "write": [], "execute": [], "network": ["mirror.local:8080"]},
 "scored_roots": {"read": [], "write": [], "execute": []}, "implicit_permissions": {"read": [], "write": [], "execute": []}}`), "s.json")
	if err != nil {
		t.Fatal(err)
	}
	plainSpec, _ := policy.ParseSpec([]byte(`{"required_permissions": {"read": [], "write": [], "execute": []},
 "scored_roots": {"read": [], "write": [], "execute": []}, "implicit_permissions": {"read": [], "write": [], "execute": []}}`), "s.json")
	valid := Policy{Source: runapi.SourcePolicy, Valid: true}
	sc := &policy.Score{Valid: true, Network: &policy.AxisScore{Precision: 0.5, Recall: 1, F1: 2.0 / 3}}
	var r Record
	FillScore(&r, sc, valid, netSpec)
	if r.NetworkF1 == nil || *r.NetworkF1 != 2.0/3 || *r.NetworkP != 0.5 || *r.NetworkR != 1 {
		t.Fatalf("network not recorded: %v %v %v", r.NetworkP, r.NetworkR, r.NetworkF1)
	}
	r = Record{}
	FillScore(&r, nil, Policy{Source: runapi.SourcePolicy, Error: "bad"}, netSpec)
	if !r.Scored || r.NetworkF1 == nil || *r.NetworkF1 != 0 {
		t.Fatalf("invalid policy: scored %v, network F1 %v", r.Scored, r.NetworkF1)
	}
	r = Record{}
	FillScore(&r, &policy.Score{Valid: true}, valid, plainSpec)
	if r.NetworkF1 != nil {
		t.Fatal("network recorded for a spec without the axis")
	}
	r = Record{}
	FillScore(&r, nil, Policy{Source: runapi.SourceUnconstrained, Valid: true}, netSpec)
	if r.NetworkF1 != nil {
		t.Fatal("network recorded for an unconstrained run")
	}
}
