package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// baseBinEnv names the binary of an earlier commit that TestVersusBase
// measures the current one against (make bench-versus BASE=REV builds it).
const baseBinEnv = "AUTHBENCH_BASE_BIN"

// TestVersusBase measures the current binary against an earlier commit's,
// side by side in one run: `exec` of /usr/bin/true embedded and through
// each binary's own daemon (hyperfine, 60 runs each), and `score` of the
// bench-score workload (9 rounds interleaved). It prints each ratio
// current/base; it reports and does not fail on them (a loaded machine
// moves both sides alike, not the ratio's sign).
func TestVersusBase(t *testing.T) {
	base := os.Getenv(baseBinEnv)
	if base == "" {
		t.Skipf("benchmark: set %s to an earlier binary (make bench-versus BASE=REV)", baseBinEnv)
	}
	requireLandlockCLI(t)
	cur := benchBinary(t)
	narrow := writeFile(t, t.TempDir(), "narrow.json", `{"read":[],"write":[],"execute":["/usr/bin/true"]}`)
	baseSock, curSock := startDaemonBinary(t, base), startDaemonBinary(t, cur)
	execOf := func(bin, socket string) string {
		return bin + " --socket '" + socket + "' exec --policy " + narrow + " -- /usr/bin/true"
	}
	res := hyperfine(t, 60,
		execOf(base, ""), execOf(cur, ""),
		execOf(base, baseSock), execOf(cur, curSock))
	report := []string{fmt.Sprintf("current %s against base %s (load average %s), medians:", cur, base, loadAverage())}
	for i, name := range []string{"exec, embedded", "exec, through the daemon"} {
		b, c := res[2*i].Median, res[2*i+1].Median
		report = append(report, versusLine(name, time.Duration(b*float64(time.Second)), time.Duration(c*float64(time.Second))))
	}
	spec, pol := scoreWorkload(t)
	scoreOf := func(bin string) []string {
		return []string{bin, "score", "--policy", pol, "--spec", spec, "--root", "/", "--json"}
	}
	samples := compare(t, 9, [][]string{scoreOf(base), scoreOf(cur)})
	report = append(report, versusLine("score over /usr", median(samples[0]), median(samples[1])))
	t.Log(strings.Join(report, "\n"))
}

// versusLine is one row of TestVersusBase's report.
func versusLine(name string, base, cur time.Duration) string {
	verdict := "not slower"
	if ratio := float64(cur) / float64(base); ratio > 1.05 {
		verdict = "SLOWER"
	}
	return fmt.Sprintf("  %-26s base %9s  current %9s  ratio %.3f: %s (beyond 5%%: slower)",
		name, base.Round(10*time.Microsecond), cur.Round(10*time.Microsecond), float64(cur)/float64(base), verdict)
}

// startDaemonBinary starts bin's own daemon (tracer, state and socket in a
// temporary directory) and returns its socket once it answers.
func startDaemonBinary(t *testing.T, bin string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "abvs")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	socket := filepath.Join(dir, "d.sock")
	cmd := exec.Command(bin, "daemon", "--socket", socket, "--state-dir", filepath.Join(dir, "state"))
	logf, err := os.Create(filepath.Join(dir, "daemon.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s daemon: %v", bin, err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
		logf.Close()
	})
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if out, err := exec.Command(bin, "--socket", socket, "runs", "list").CombinedOutput(); err == nil {
			return socket
		} else if time.Now().After(deadline) {
			log, _ := os.ReadFile(logf.Name())
			t.Fatalf("%s daemon on %s did not answer in 30 s: %v: %s\n%s", bin, socket, err, out, log)
		}
	}
}
