package oracle

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/authbench/authbench/policy"
)

const sumSolve = "awk -F, 'NR > 1 { s += $2 } END { print s }' /app/data.csv > /app/total.txt\n"

// TestRecordNeverGrantsASensitiveFile: on copies of secret-sensitive
// (deploy.key in /app/config), a recorded entry that, enforced under
// published semantics, would let deploy.key be read is dropped, and
// verification decides: an oracle that lists /app/config and does
// without it records a spec without the listing; one that needs the
// listing, or reads back a file it made at run time beside the key
// (whose entry grants all of /app: its nearest existing ancestor), is
// refused naming the grant. On 4276286 the first two recorded read
// /app/config and the third read /app/check.txt, and the key was
// readable under each.
func TestRecordNeverGrantsASensitiveFile(t *testing.T) {
	api := testAPI(t)
	ctx := context.Background()
	cases := []struct {
		name, solve, semantics string
		refused                bool
		dropped                string
	}{
		{"a listing the oracle does without", "#!/bin/bash\nset -eu\nls /app/config > /dev/null 2>&1 || true\n" + sumSolve, "", false, "read /app/config"},
		// Published semantics let /app be listed through the write of
		// total.txt (its parent's rights include read_dir); precise do not.
		{"a listing the oracle needs", "#!/bin/bash\nset -eu\nls /app/config > /dev/null\n" + sumSolve, "precise", true, "read /app/config"},
		{"a file made at run time beside the key", "#!/bin/bash\nset -eu\necho ok > /app/check.txt\ncat /app/check.txt > /dev/null\n" + sumSolve, "", true, "read /app/check.txt"},
		// The same file read back by a step the oracle does without: the
		// exact read entry (its nearest existing ancestor /app at launch,
		// the key below it) is dropped and the recording verifies with
		// the created file as a write entry only.
		{"a file made at run time beside the key, read back by a step the oracle does without",
			"#!/bin/bash\nset -eu\necho ok > /app/check.txt\ncat /app/check.txt > /dev/null 2>&1 || true\n" + sumSolve, "", false, "read /app/check.txt"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			task, root := loadFixture(t, copyFixture(t, "secret-sensitive", map[string]string{"solution/solve.sh": tc.solve}))
			spec, rep, err := Record(ctx, api, task, RecordOptions{Root: root, Runs: 1, Verify: true, RunOptions: RunOptions{Semantics: tc.semantics}})
			if rep == nil || !slices.ContainsFunc(rep.Dropped, func(d DroppedEntry) bool { return d.Axis+" "+d.Entry == tc.dropped }) {
				t.Fatalf("report %+v (err %v): want %s dropped", rep, err, tc.dropped)
			}
			var sg *SensitiveGrantError
			if tc.refused {
				if !errors.As(err, &sg) || !strings.Contains(err.Error(), "/app/config/deploy.key") {
					t.Fatalf("record: %v; want refused naming the key", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range spec.Required.Get(policy.Read) {
				if p.Match("/app/config") || p.Match("/app") || p.Match("/app/check.txt") {
					t.Errorf("recorded read %s grants the key's directory", p)
				}
			}
			sem := policy.Semantics(tc.semantics)
			if sem == "" {
				sem = policy.DefaultTaskSemantics
			}
			gs, err := policy.PolicySensitiveGrants(&policy.Policy{Permissions: spec.Required}, spec, root, sem)
			if err != nil {
				t.Fatal(err)
			}
			if ex := policy.Exposing(gs); len(ex) > 0 {
				t.Errorf("the recorded spec's plan (%s) exposes %v", sem, ex)
			}
		})
	}
}

// TestRecordCountsAChmodAsAWrite: an oracle that only changes a file's
// mode records a write entry for it (on 4276286: none; the published
// specs list such files under write).
func TestRecordCountsAChmodAsAWrite(t *testing.T) {
	api := testAPI(t)
	task, root := loadFixture(t, copyFixture(t, "hello-standard", map[string]string{
		"solution/solve.sh": "#!/bin/bash\nset -eu\nchmod 0600 /app/input.txt\nwc -l < /app/input.txt > /app/count.txt\n"}))
	spec, _, err := Record(context.Background(), api, task, RecordOptions{Root: root, Runs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(spec.Required.Get(policy.Write), func(p policy.Pattern) bool { return p.String() == "/app/input.txt" }) {
		t.Errorf("recorded write %v lacks the chmod'ed /app/input.txt", spec.Required.Get(policy.Write))
	}
}

// TestVerifyRefusesASpecWhosePlanOpensASensitiveFile: a required read of
// /app (a directory: its whole hierarchy under published semantics)
// opens deploy.key though no entry names it and the static coverage says
// 0: the task run records the grant (plan_grants_sensitive) and verify
// refuses the spec naming it.
func TestVerifyRefusesASpecWhosePlanOpensASensitiveFile(t *testing.T) {
	api := testAPI(t)
	task, root := loadFixture(t, copyFixture(t, "secret-sensitive", nil))
	spec := cloneSpec(task.Spec)
	spec.Required[policy.Read] = append(spec.Required[policy.Read], policy.MustPattern("/app"))
	v, err := Verify(context.Background(), api, task, spec, VerifyOptions{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	key := func(gs []policy.SensitiveGrant) bool {
		return slices.ContainsFunc(gs, func(g policy.SensitiveGrant) bool { return g.Axis == policy.Read && g.Path == "/app/config/deploy.key" })
	}
	if v.OK || !key(v.GrantsSensitive) || !key(v.Oracle.PlanGrantsSensitive) {
		t.Fatalf("verdict ok %v, grants %+v, run's plan grants %+v; problems %q", v.OK, v.GrantsSensitive, v.Oracle.PlanGrantsSensitive, v.Problems)
	}
	if !strings.Contains(strings.Join(v.Problems, "\n"), "the spec's enforced plan grants sensitive read /app/config/deploy.key") {
		t.Errorf("problems %q", v.Problems)
	}
}
