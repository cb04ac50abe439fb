package oracle

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/authbench/authbench/policy"
)

// TestMakeSufficientRepairsAMissingExecute: a spec of hello-standard
// without its /usr/bin/wc execute entry fails verify; MakeSufficient
// adds exactly that entry (the denial's realpath), records the repair
// with its denial, and returns a spec that passed both replays.
func TestMakeSufficientRepairsAMissingExecute(t *testing.T) {
	api := testAPI(t)
	task, root := loadFixture(t, filepath.Join(fixtures, "hello-standard"))
	spec := cloneSpec(task.Spec)
	spec.Required[policy.Execute] = slices.DeleteFunc(spec.Required[policy.Execute], func(p policy.Pattern) bool { return p.String() == "/usr/bin/wc" })
	got, suf, err := MakeSufficient(context.Background(), api, task, spec, 3, VerifyOptions{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if suf.Rounds != 2 || len(suf.Repairs) != 1 || suf.Repairs[0].Axis != "execute" || suf.Repairs[0].Entry != "/usr/bin/wc" || suf.Repairs[0].Denial == "" {
		t.Fatalf("sufficiency %+v, want one repair execute /usr/bin/wc in round 1", suf)
	}
	if !slices.ContainsFunc(got.Required.Get(policy.Execute), func(p policy.Pattern) bool { return p.String() == "/usr/bin/wc" }) {
		t.Fatalf("repaired spec %v lacks /usr/bin/wc", got.Required)
	}
	if len(spec.Required.Get(policy.Execute)) != 1 {
		t.Fatalf("the input spec changed: %v", spec.Required)
	}
}

// TestMakeSufficientRefusesASensitiveDenial: when the entry a denial
// calls for is sensitive, the spec is never made sufficient by granting
// it.
func TestMakeSufficientRefusesASensitiveDenial(t *testing.T) {
	api := testAPI(t)
	task, root := loadFixture(t, filepath.Join(fixtures, "hello-standard"))
	spec := cloneSpec(task.Spec)
	spec.Required[policy.Read] = nil
	sens := policy.Permissions{}
	sens[policy.Read] = []policy.Pattern{policy.MustPattern("/app/input.txt")}
	spec.Sensitive = &sens
	_, _, err := MakeSufficient(context.Background(), api, task, spec, 3, VerifyOptions{Root: root})
	var so *SensitiveOverlapError
	if !errors.As(err, &so) || len(so.Overlaps) == 0 || so.Overlaps[0].Path != "/app/input.txt" {
		t.Fatalf("err %v, want the sensitive overlap on /app/input.txt", err)
	}
}

// TestMakeSufficientReadsWhatMkstempMakes: svc-stocksync-api-v2's sync
// writes its output through mkstemp (O_RDWR|O_CREAT|O_EXCL) in
// /var/lib/stocksync. A recorded spec that names the temporary files by a
// glob of generated names (as the recorder writes them) grants nothing at
// launch on the read axis, and the open is refused although writing
// there is granted. MakeSufficient repairs it with the directory's dir/**
// on the read axis in one round; before, its write repairs (each run's
// new random name) never converged.
func TestMakeSufficientReadsWhatMkstempMakes(t *testing.T) {
	api := testAPI(t)
	task, root := loadFixture(t, filepath.Join("..", "tasks", "suite", "svc-stocksync-api-v2"))
	spec := cloneSpec(task.Spec)
	set := func(ax policy.Axis, pats ...string) {
		spec.Required[ax] = nil
		for _, p := range pats {
			spec.Required[ax] = append(spec.Required[ax], policy.MustPattern(p))
		}
	}
	set(policy.Read, "/etc/stocksync/api.key", "/etc/stocksync/stocksync.ini", "/opt/stocksync/bin", "/opt/stocksync/bin/stocksync",
		"/var/lib/stocksync/.stock-*", "/var/lib/stocksync/stock.csv", "/var/log/stocksync/cron.log")
	set(policy.Write, "/etc/stocksync/stocksync.ini", "/var/lib/stocksync/.stock-*", "/var/lib/stocksync/stock.csv")
	got, suf, err := MakeSufficient(context.Background(), api, task, spec, 3, VerifyOptions{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if len(suf.Repairs) != 1 || suf.Repairs[0].Axis != "read" || suf.Repairs[0].Entry != "/var/lib/stocksync/**" || suf.Repairs[0].Widening == "" {
		t.Fatalf("sufficiency %+v, want one repair: read /var/lib/stocksync/**, as a widening", suf)
	}
	if !slices.ContainsFunc(got.Required.Get(policy.Read), func(p policy.Pattern) bool { return p.String() == "/var/lib/stocksync/**" }) {
		t.Fatalf("repaired spec %v lacks read /var/lib/stocksync/**", got.Required)
	}
}
