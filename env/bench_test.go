package env

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/tasks"
)

// median of ds, in the unit u.
func median(ds []time.Duration, u time.Duration) float64 {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s) == 0 {
		return 0
	}
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return float64(m) / float64(u)
}

// BenchmarkRunSetup measures one run's setup on the hello-standard image:
// the overlay rootfs (NewRootfs), then rootfs ready → the command's exec
// inside runc (the command prints its own start time), and the whole
// round trip including teardown. Reported as medians; the target for
// ready→exec is ≤ 300 ms.
func BenchmarkRunSetup(b *testing.B) {
	needRunc(b)
	s, bld, base := needBase(b)
	task, err := tasks.Load(filepath.Join("..", "tasks", "testdata", "fixtures", "hello-standard"))
	if err != nil {
		b.Fatal(err)
	}
	img, _, err := BuildTask(context.Background(), s, task, BuildOptions{Builder: bld, Base: base})
	if err != nil {
		b.Fatal(err)
	}
	work := b.TempDir()
	var overlay, toExec, total []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		rfs, err := NewRootfs(img.Rootfs, filepath.Join(work, fmt.Sprintf("run-%d", i)))
		if err != nil {
			b.Fatal(err)
		}
		ready := time.Now()
		spec, err := RuntimeSpec(RunConfig{Rootfs: rfs.Path, Args: []string{"/bin/date", "+%s%N"}, UID: 1000, GID: 1000,
			TestsDir: task.TestsDir(), Env: img.Config.Env, Cwd: img.Config.WorkingDir})
		if err != nil {
			b.Fatal(err)
		}
		bundle := filepath.Join(work, fmt.Sprintf("bundle-%d", i))
		if err := WriteBundle(bundle, spec); err != nil {
			b.Fatal(err)
		}
		var out bytes.Buffer
		res, err := Runc{Root: filepath.Join(work, "runc")}.Run(context.Background(), bundle, fmt.Sprintf("authbench-bench-%d-%d", os.Getpid(), i), Stdio{Stdout: &out})
		if err != nil || res.ExitCode != 0 {
			b.Fatalf("run: %v %+v", err, res)
		}
		if err := rfs.Close(); err != nil {
			b.Fatal(err)
		}
		os.RemoveAll(bundle)
		total = append(total, time.Since(start))
		ns, err := strconv.ParseInt(strings.TrimSpace(out.String()), 10, 64)
		if err != nil {
			b.Fatalf("date printed %q", out.String())
		}
		overlay = append(overlay, rfs.Setup)
		toExec = append(toExec, time.Unix(0, ns).Sub(ready))
	}
	b.ReportMetric(median(overlay, time.Millisecond), "overlay-ms")
	b.ReportMetric(median(toExec, time.Millisecond), "ready-to-exec-ms")
	b.ReportMetric(median(total, time.Millisecond), "round-trip-ms")
}

// slowBench skips the minutes-long build benchmarks unless asked for.
func slowBench(b *testing.B) {
	if os.Getenv("AUTHBENCH_BENCH_BUILD") != "1" {
		b.Skip("set AUTHBENCH_BENCH_BUILD=1 (make bench-env) to time image builds from scratch")
	}
}

// BenchmarkBaseBuild times debootstrap + import into buildah from
// nothing, into a fresh images directory each time.
func BenchmarkBaseBuild(b *testing.B) {
	slowBench(b)
	needRoot(b)
	need(b, "debootstrap", haveBin("debootstrap"))
	need(b, "buildah", haveBin("buildah"))
	var ds []time.Duration
	for i := 0; i < b.N; i++ {
		s := Store{Dir: b.TempDir()}
		start := time.Now()
		img, _, err := BuildBase(context.Background(), s, DefaultBaseConfig(), nil)
		if err == nil {
			_, err = ImportBase(context.Background(), s, NewBuilder(Buildah, s), img, nil)
		}
		if err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(start))
		os.RemoveAll(s.Dir)
	}
	b.ReportMetric(median(ds, time.Second), "s-median")
}

// BenchmarkTaskBuild times building and exporting the hello-standard and
// apt-package images on the cached base, with a fresh build context each
// time so that nothing is reused.
func BenchmarkTaskBuild(b *testing.B) {
	slowBench(b)
	s, bld, base := needBase(b)
	for _, name := range []string{"hello-standard", "apt-package"} {
		b.Run(name, func(b *testing.B) {
			var ds []time.Duration
			for i := 0; i < b.N; i++ {
				task, err := tasks.Load(filepath.Join("..", "tasks", "testdata", "fixtures", name))
				if err != nil {
					b.Fatal(err)
				}
				task.Dir = b.TempDir()
				ctxDir := task.ContextDir()
				if err := os.CopyFS(ctxDir, os.DirFS(filepath.Join("..", "tasks", "testdata", "fixtures", name, tasks.DirEnvironment))); err != nil {
					b.Fatal(err)
				}
				os.WriteFile(filepath.Join(ctxDir, ".nonce"), []byte(time.Now().String()), 0o644)
				start := time.Now()
				img, built, err := BuildTask(context.Background(), s, task, BuildOptions{Builder: bld, Base: base})
				if err != nil || !built {
					b.Fatalf("build: built=%v %v", built, err)
				}
				ds = append(ds, time.Since(start))
				os.RemoveAll(filepath.Dir(img.Rootfs))
			}
			b.ReportMetric(median(ds, time.Second), "s-median")
		})
	}
}
