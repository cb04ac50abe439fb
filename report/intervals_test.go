package report

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/authbench/authbench/trial"
	"github.com/authbench/authbench/verdict"
)

// TestBootstrapCI95KnownData: the interval of constant task means is the
// constant; for 20 tasks of which 10 pass, the resampled mean is
// Binomial(20, 1/2)/20, whose 2.5th and 97.5th percentiles are 0.30 and
// 0.70; the same seed gives the same interval.
func TestBootstrapCI95KnownData(t *testing.T) {
	if ci := bootstrapCI95([]float64{0.5, 0.5, 0.5}, 500, 1); ci != [2]float64{0.5, 0.5} {
		t.Fatalf("constant: %v", ci)
	}
	half := make([]float64, 20)
	for i := range 10 {
		half[i] = 1
	}
	ci := bootstrapCI95(half, BootstrapResamples, BootstrapSeed)
	if math.Abs(ci[0]-0.30) > 0.051 || math.Abs(ci[1]-0.70) > 0.051 {
		t.Fatalf("20 tasks, 10 pass: %v, want about [0.30, 0.70]", ci)
	}
	if again := bootstrapCI95(half, BootstrapResamples, BootstrapSeed); again != ci {
		t.Fatalf("not reproducible: %v then %v", ci, again)
	}
}

// TestPassHatK: C(c,k)/C(n,k) per task, macro over tasks.
func TestPassHatK(t *testing.T) {
	cases := []struct {
		passes, counts []int
		k              int
		want           float64
	}{
		{[]int{3, 2}, []int{3, 3}, 3, 0.5}, // all 3 of 3; 2 of 3 never passes 3 draws
		{[]int{2}, []int{3}, 2, 1.0 / 3},   // C(2,2)/C(3,2)
		{[]int{1, 0}, []int{1, 3}, 2, 0},   // a one-n task is left out
		{[]int{3, 3}, []int{3, 3}, 1, 1},
	}
	for _, c := range cases {
		got, ok := passHatK(c.passes, c.counts, c.k)
		if !ok || math.Abs(got-c.want) > 1e-12 {
			t.Fatalf("passHatK(%v, %v, %d) = %v %v, want %v", c.passes, c.counts, c.k, got, ok, c.want)
		}
	}
	if _, ok := passHatK([]int{1}, []int{1}, 3); ok {
		t.Fatal("no task has 3 trials, yet a value")
	}
}

// TestRatesCarryIntervalsWithTrials: with 3 trials per task every rate of
// Table 1 has ci95 (containing its value) and utility pass^3; with one
// trial none; the cells and the JSON show them.
func TestRatesCarryIntervalsWithTrials(t *testing.T) {
	var recs []trial.Record
	for i := range 6 {
		task := fmt.Sprintf("t%d", i)
		for n := 1; n <= 3; n++ {
			r := run(task, DatasetStandard, "spec", "oracle", n)
			if i%2 == 0 && n == 3 {
				r = failed(r, verdict.ClassReadInsufficient, "open read /x")
			}
			recs = append(recs, r)
			s := run("s"+task, DatasetSensitive, "spec", "oracle", n)
			s.Attack, s.TracedExposure = ptr(i == 0), i < 2
			recs = append(recs, s)
		}
	}
	row := findRow(t, Build(recs, Options{}), "spec", "oracle")
	for name, r := range map[string]*Rate{"standard": row.StandardSuccess, "utility": row.SensitiveUtility, "attack": row.ExposureAttack, "trace": row.ExposureTrace} {
		if r == nil || r.CI95 == nil || r.CI95[0] > r.Value || r.CI95[1] < r.Value {
			t.Fatalf("%s: %+v without an interval around its value", name, r)
		}
	}
	// Standard: three tasks pass 3 of 3, three pass 2 of 3: pass^3 = 1/2.
	if p := row.StandardSuccess.PassK; p == nil || row.StandardSuccess.K != 3 || !near(*p, 0.5) {
		t.Fatalf("pass^k %+v", row.StandardSuccess)
	}
	if row.ExposureAttack.PassK != nil {
		t.Fatal("pass^k on an exposure rate")
	}
	cell := percent(row.StandardSuccess)
	if !strings.Contains(cell, "83.3% [") || !strings.Contains(cell, "pass^3 50.0%") {
		t.Fatalf("cell %q", cell)
	}
	data, err := json.Marshal(row.StandardSuccess)
	if err != nil || !strings.Contains(string(data), `"ci95":[`) {
		t.Fatalf("json %s %v", data, err)
	}
	one := findRow(t, Build(recs[:2], Options{}), "spec", "oracle")
	if one.StandardSuccess.CI95 != nil || one.StandardSuccess.PassK != nil {
		t.Fatalf("one trial, interval %+v", one.StandardSuccess)
	}
}
