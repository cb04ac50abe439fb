package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The scorer benchmark runs only when asked (make bench-score):
//
//	AUTHBENCH_BENCH_SCORE=1 [AUTHBENCH_BIN=bin/authbench] go test ./cli -run TestScoreVersusFind -v
//
// It scores a policy over the host's real /usr (scored roots: read /usr,
// write /tmp, execute /usr/bin) with `authbench score`, and lists the same
// roots with `find`, interleaved, and prints the medians of wall time and
// of peak RSS side by side with their ratio (targets: ≤ 1.5× find's wall
// time, ≤ 40 MiB peak). It reports; it does not fail on the targets.
func TestScoreVersusFind(t *testing.T) {
	if os.Getenv("AUTHBENCH_BENCH_SCORE") == "" {
		t.Skip("set AUTHBENCH_BENCH_SCORE=1 (make bench-score)")
	}
	bin := benchBinary(t)
	spec, pol := scoreWorkload(t)
	score := []string{bin, "score", "--policy", pol, "--spec", spec, "--root", "/", "--json"}
	find := []string{"find", "/usr", "/tmp", "/usr/bin"}
	const rounds = 9
	var scoreT, findT []time.Duration
	var scoreRSS, findRSS []time.Duration // KiB, in a Duration slice to reuse median
	for i := 0; i < rounds; i++ {
		d, rss := measureRun(t, score)
		scoreT, scoreRSS = append(scoreT, d), append(scoreRSS, time.Duration(rss))
		d, rss = measureRun(t, find)
		findT, findRSS = append(findT, d), append(findRSS, time.Duration(rss))
	}
	st, ft := median(scoreT), median(findT)
	sr, fr := int64(median(scoreRSS)), int64(median(findRSS))
	t.Logf("load %s, %d rounds interleaved, medians:", loadAverage(), rounds)
	t.Logf("  %-40s %8s %10s", "", "wall", "peak RSS")
	t.Logf("  %-40s %8s %7d KiB", strings.Join(find, " "), ft.Round(time.Millisecond), fr)
	t.Logf("  %-40s %8s %7d KiB", "authbench score (same roots)", st.Round(time.Millisecond), sr)
	t.Logf("  ratio score/find: %.2fx wall (target <= 1.5x); peak %.1f MiB (target <= 40 MiB)",
		float64(st)/float64(ft), float64(sr)/1024)
}

// scoreWorkload writes the scorer benchmark's spec and policy over the
// host's real /usr and returns their paths.
func scoreWorkload(t *testing.T) (spec, pol string) {
	t.Helper()
	dir := t.TempDir()
	spec = writeFile(t, dir, "spec.json", `{
 "required_permissions": {"read": ["/usr/lib/os-release", "/usr/share/zoneinfo/**"], "write": ["/tmp/out.txt"], "execute": ["/usr/bin/sh", "/usr/bin/g*"]},
 "scored_roots": {"read": ["/usr"], "write": ["/tmp"], "execute": ["/usr/bin"]},
 "implicit_permissions": {"read": ["/usr/lib/x86_64-linux-gnu/**"], "write": [], "execute": ["/usr/bin/dash"]},
 "sensitive_permissions": {"read": ["/usr/share/doc/**"], "write": [], "execute": []}
}`)
	pol = writeFile(t, dir, "policy.json", `{"read": ["/usr/**", "/etc/**"], "write": ["/tmp/**"], "execute": ["/usr/bin/py*", "/usr/bin/[a-f]*", "/usr/bin/sh"]}`)
	return spec, pol
}

// measureRun runs argv once under GNU time (output discarded; find's exit
// status is ignored, since /tmp may hold unreadable entries) and returns
// its wall time and peak RSS in KiB. The peak is GNU time's: a child this
// test started itself would report at least the test binary's own RSS
// (Go starts children with vfork, and the kernel keeps the pre-exec
// memory's high-water mark in ru_maxrss), while GNU time forks from a
// small process.
func measureRun(t *testing.T, argv []string) (time.Duration, int64) {
	t.Helper()
	gnuTime, err := exec.LookPath("/usr/bin/time")
	if err != nil {
		t.Fatalf("GNU time measures the peak RSS (apt-get install time; make deps): %v", err)
	}
	out := filepath.Join(t.TempDir(), "maxrss")
	cmd := exec.Command(gnuTime, append([]string{"-q", "-f", "%M", "-o", out}, argv...)...)
	start := time.Now()
	err = cmd.Run()
	d := time.Since(start)
	if err != nil && argv[0] != "find" {
		t.Fatalf("%s: %v", strings.Join(argv, " "), err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(string(data))
	if len(fields) == 0 {
		t.Fatalf("GNU time wrote no peak RSS for %s: %q", argv[0], data)
	}
	kib, err := strconv.ParseInt(fields[len(fields)-1], 10, 64)
	if err != nil {
		t.Fatalf("GNU time's peak RSS for %s: %q", argv[0], data)
	}
	return d, kib
}
