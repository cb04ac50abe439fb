package oracle

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/tasks"
)

// twoGapsSolve writes the answer hello-standard's verifier checks, then
// runs two programs its spec does not grant and ends with the exit of
// the last refused one (126): the verifier looks only at count.txt.
const twoGapsSolve = `#!/bin/bash
wc -l < /app/input.txt > /app/count.txt
sort /app/input.txt > /dev/null
head -n 1 /app/input.txt > /dev/null
`

func loadTask(t *testing.T, dir string) (*tasks.Task, *policy.Root) {
	t.Helper()
	return loadFixture(t, dir)
}

// TestVerifyRequiresACleanEnd: an oracle that exits 126 on two denials
// its verifier ignores does not verify (on 4276286 it did: V_u passed),
// and both denials are named; errata replay it with each entry added in
// turn and list both, ending with an oracle that exits 0.
func TestVerifyRequiresACleanEnd(t *testing.T) {
	api := testAPI(t)
	ctx := context.Background()
	task, root := loadTask(t, copyFixture(t, "hello-standard", map[string]string{"solution/solve.sh": twoGapsSolve}))
	v, err := Verify(ctx, api, task, task.Spec, VerifyOptions{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if v.OK || v.OracleClean || !v.Oracle.Utility || v.Oracle.ExitCode != 126 {
		t.Fatalf("verdict ok %v clean %v, oracle %+v; problems %q: want refused (V_u passed, exit 126)", v.OK, v.OracleClean, v.Oracle, v.Problems)
	}
	var denied []string
	for _, m := range v.Missing {
		if !m.OutsideRoots {
			denied = append(denied, m.Axis+" "+m.Entry)
		}
	}
	if !slices.Equal(denied, []string{"execute /usr/bin/sort", "execute /usr/bin/head"}) {
		t.Errorf("deciding denials %v, want sort then head", denied)
	}
	if !strings.Contains(strings.Join(v.Problems, "\n"), "oracle exited 126 under the spec") {
		t.Errorf("problems %q do not name the oracle's exit", v.Problems)
	}
	res, err := Errata(ctx, api, task, 0, VerifyOptions{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	var entries []string
	for _, e := range res.Entries {
		entries = append(entries, e.Axis+" "+e.Entry)
	}
	if !res.Clean || res.Stop != "" || !slices.Equal(entries, []string{"execute /usr/bin/sort", "execute /usr/bin/head"}) || res.Rounds != 3 {
		t.Fatalf("errata %+v: want both entries, in 3 replays, ending cleanly", res)
	}
	if res.Entries[1].Round != 2 || res.Entries[1].Denied.Path == "" {
		t.Errorf("second entry %+v: want round 2 with its denial", res.Entries[1])
	}
}

// TestErrataStopsAtTheBound: with one replay allowed, errata say why they
// stop and list what they found so far.
func TestErrataStopsAtTheBound(t *testing.T) {
	api := testAPI(t)
	task, root := loadTask(t, copyFixture(t, "hello-standard", map[string]string{"solution/solve.sh": twoGapsSolve}))
	res, err := Errata(context.Background(), api, task, 1, VerifyOptions{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if res.Clean || !strings.Contains(res.Stop, "did not converge within 1 rounds") || len(res.Entries) != 0 {
		t.Fatalf("errata %+v: want a stop at the bound", res)
	}
}
