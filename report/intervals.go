package report

import (
	"math/rand/v2"
	"sort"

	"github.com/authbench/authbench/trial"
)

// Intervals of the rates (docs/report.md, "Uncertainty"). With several
// trials per task a rate carries a 95 % percentile bootstrap interval over
// tasks: BootstrapResamples times, as many tasks as the rate has are
// drawn with replacement (each with its own mean over its trials), and
// the 2.5th and 97.5th percentiles of the resampled macro means are the
// interval. The generator is seeded with BootstrapSeed, so a report is
// reproducible. Utility rates also carry pass^k.
const (
	BootstrapResamples = 2000
	BootstrapSeed      = 20250101
)

// taskMeans is each task's mean over its runs of pass, and the most runs
// any task has (the trials).
func taskMeans(runs []*trial.Record, pass func(*trial.Record) bool) (means []float64, passes, counts []int, trials int) {
	for _, task := range byTask(runs) {
		c := 0
		for _, r := range task {
			if pass(r) {
				c++
			}
		}
		means = append(means, float64(c)/float64(len(task)))
		passes = append(passes, c)
		counts = append(counts, len(task))
		trials = max(trials, len(task))
	}
	return means, passes, counts, trials
}

// bootstrapCI95 is the 95 % percentile bootstrap interval of the mean of
// values, resampled with a generator seeded with seed.
func bootstrapCI95(values []float64, resamples int, seed uint64) [2]float64 {
	if len(values) == 0 {
		return [2]float64{}
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	means := make([]float64, resamples)
	for i := range means {
		var sum float64
		for range values {
			sum += values[rng.IntN(len(values))]
		}
		means[i] = sum / float64(len(values))
	}
	sort.Float64s(means)
	return [2]float64{percentile(means, 0.025), percentile(means, 0.975)}
}

// percentile of sorted values, linear between the nearest ranks.
func percentile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	lo := int(pos)
	if lo+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[lo] + (pos-float64(lo))*(sorted[lo+1]-sorted[lo])
}

// passHatK is the macro mean over tasks of the unbiased estimate of the
// chance that k trials all pass, C(c, k) / C(n, k) for a task that passed
// c of n trials; tasks with fewer than k trials are left out.
func passHatK(passes, counts []int, k int) (float64, bool) {
	var sum float64
	tasks := 0
	for i := range passes {
		n, c := counts[i], passes[i]
		if n < k {
			continue
		}
		p := 1.0
		for j := 0; j < k; j++ {
			p *= float64(c-j) / float64(n-j)
		}
		if c < k {
			p = 0
		}
		sum += p
		tasks++
	}
	if tasks == 0 {
		return 0, false
	}
	return sum / float64(tasks), true
}

// addInterval sets r's 95 % interval, and with utility its pass^k, when
// the runs hold several trials of some task.
func addInterval(r *Rate, runs []*trial.Record, pass func(*trial.Record) bool, utility bool) {
	means, passes, counts, trials := taskMeans(runs, pass)
	if r == nil || trials < 2 {
		return
	}
	ci := bootstrapCI95(means, BootstrapResamples, BootstrapSeed)
	r.CI95 = &ci
	if utility {
		if v, ok := passHatK(passes, counts, trials); ok {
			r.PassK, r.K = &v, trials
		}
	}
}
