package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/testenv"
)

// The exec latency benchmark runs only when asked (make bench-exec):
//
//	AUTHBENCH_BENCH_EXEC=1 [AUTHBENCH_BIN=bin/authbench] go test ./cli -run TestExecLatency -v
//
// It compares, interleaved in one run, the medians of bare /bin/true,
// bwrap --ro-bind / / /bin/true and authbench exec --policy narrow.json --
// /bin/true (target: ≤ 5 ms added), then reading every file of a 20k-file
// tree bare and under authbench exec (target: ≤ 3% overhead). It logs the
// numbers and whether each target was met; it does not fail on them.
const benchEnv = "AUTHBENCH_BENCH_EXEC"

// benchBinary returns the authbench binary to measure: $AUTHBENCH_BIN,
// or a static build.
func benchBinary(t *testing.T) string {
	t.Helper()
	return testenv.Authbench(t)
}

// timeRun runs argv once and returns its wall time.
func timeRun(t *testing.T, argv []string) time.Duration {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	d := time.Since(start)
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
	}
	return d
}

// loadAverage returns the 1-minute load average, to judge the numbers
// (the benchmark reports rather than fails: shared machines are noisy).
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(data))[0]
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func quantile(ds []time.Duration, q float64) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[int(q*float64(len(s)-1))]
}

// compare runs each variant rounds times, interleaved, and returns the
// samples per variant.
func compare(t *testing.T, rounds int, variants [][]string) [][]time.Duration {
	t.Helper()
	samples := make([][]time.Duration, len(variants))
	for _, v := range variants { // warm up caches
		timeRun(t, v)
	}
	for r := 0; r < rounds; r++ {
		for i, v := range variants {
			samples[i] = append(samples[i], timeRun(t, v))
		}
	}
	return samples
}

func TestExecLatency(t *testing.T) {
	if os.Getenv(benchEnv) == "" {
		t.Skipf("benchmark: set %s=1 (make bench-exec)", benchEnv)
	}
	requireLandlockCLI(t)
	bin := benchBinary(t)
	dir := t.TempDir()
	narrow := writeFile(t, dir, "narrow.json", `{"read":[],"write":[],"execute":["/bin/true"]}`)

	variants := [][]string{
		{"/bin/true"},
		{"bwrap", "--ro-bind", "/", "/", "/bin/true"},
		{bin, "--version"},
		{bin, "exec", "--policy", narrow, "--baseline", "none", "--", "/bin/true"},
		{bin, "exec", "--policy", narrow, "--", "/bin/true"},
	}
	names := []string{"bare /bin/true", "bwrap --ro-bind / / /bin/true", "authbench --version (start-up only)",
		"authbench exec (baseline none)", "authbench exec narrow.json"}
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Logf("bwrap not installed: skipped")
		variants = append(variants[:1], variants[2:]...)
		names = append(names[:1], names[2:]...)
	}
	samples := compare(t, 200, variants)
	var b strings.Builder
	fmt.Fprintf(&b, "%-36s %10s %10s %10s\n", "command (200 runs each, interleaved)", "median", "p90", "added")
	base := median(samples[0])
	for i, s := range samples {
		fmt.Fprintf(&b, "%-36s %10s %10s %10s\n", names[i], median(s).Round(10*time.Microsecond),
			quantile(s, 0.9).Round(10*time.Microsecond), (median(s) - base).Round(10*time.Microsecond))
	}
	added := median(samples[len(samples)-1]) - base
	verdict := "target met"
	if added > 5*time.Millisecond {
		verdict = "TARGET MISSED"
	}
	t.Logf("exec latency (load average %s):\n%s\nauthbench exec adds %s at the median: %s (target ≤ 5ms)",
		loadAverage(), b.String(), added.Round(10*time.Microsecond), verdict)
}

// TestReadTreeOverhead reads every file of a 20k-file tree with
// find | xargs cat, bare and under authbench exec.
func TestReadTreeOverhead(t *testing.T) {
	if os.Getenv(benchEnv) == "" {
		t.Skipf("benchmark: set %s=1 (make bench-exec)", benchEnv)
	}
	requireLandlockCLI(t)
	bin := benchBinary(t)
	tree := filepath.Join(t.TempDir(), "tree")
	content := []byte(strings.Repeat("authbench read-tree benchmark\n", 40)) // 1.2 KB
	for d := 0; d < 200; d++ {
		sub := filepath.Join(tree, fmt.Sprintf("d%03d", d))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		for f := 0; f < 100; f++ {
			if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%03d.txt", f)), content, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	script := "find " + tree + " -type f -print0 | xargs -0 cat > /dev/null"
	pol := writeFile(t, t.TempDir(), "tree.json", `{"read":["`+tree+`/**"],"write":[],"execute":["/usr/bin/find","/usr/bin/xargs","/usr/bin/cat"]}`)
	variants := [][]string{
		{"/bin/sh", "-c", script},
		{bin, "exec", "--policy", pol, "--", "/bin/sh", "-c", script},
		{bin, "exec", "--policy", pol, "--seccomp", "none", "--", "/bin/sh", "-c", script},
	}
	samples := compare(t, 15, variants)
	bare, conf, noSeccomp := median(samples[0]), median(samples[1]), median(samples[2])
	overhead := float64(conf-bare) / float64(bare) * 100
	verdict := "target met"
	if overhead > 3 {
		verdict = "TARGET MISSED"
	}
	t.Logf("read every file of a 20000-file tree (find | xargs cat, 15 runs each, interleaved; load average %s):\n"+
		"  bare                              %s\n  authbench exec                    %s\n"+
		"  authbench exec --seccomp none     %s (%+.1f%%: Landlock alone)\n  overhead                          %+.1f%%: %s (target ≤ 3%%)",
		loadAverage(), bare.Round(100*time.Microsecond), conf.Round(100*time.Microsecond),
		noSeccomp.Round(100*time.Microsecond), float64(noSeccomp-bare)/float64(bare)*100, overhead, verdict)
}
