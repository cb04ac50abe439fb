package testenv

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// PeakRSS is this process's peak resident set (VmHWM) in bytes. Unlike a
// child's rusage, it counts nothing of a parent whose memory the process
// shared until its exec.
func PeakRSS(t testing.TB) int64 {
	t.Helper()
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/self/status")
	return 0
}
