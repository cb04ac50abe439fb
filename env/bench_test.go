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
	"sync"
	"testing"
	"time"

	"github.com/authbench/authbench/env/imagemeta"
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
			_, err = ImportBase(context.Background(), s, NewBuilder(imagemeta.Buildah, s), img, nil)
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

// BenchmarkSuiteBuild times building every task image of the built-in
// suite (tasks/suite) on the built and imported base, the way a fresh
// machine builds them after the base: copies of the task directories,
// each with a nonce in its build context so that nothing is reused,
// AUTHBENCH_BUILD_JOBS (default 2) builds at a time. Reported: the wall
// time of all of them (target ≤ 300 s on 2 cores), the median build of
// one image, and the load average before and after (other work on the
// machine counts).
func BenchmarkSuiteBuild(b *testing.B) {
	slowBench(b)
	s, bld, base := needBase(b)
	jobs := 2
	if v := os.Getenv("AUTHBENCH_BUILD_JOBS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("AUTHBENCH_BUILD_JOBS=%q", v)
		}
		jobs = n
	}
	dirs, err := filepath.Glob(filepath.Join("..", "tasks", "suite", "*", tasks.FileConfig))
	if err != nil || len(dirs) == 0 {
		b.Fatalf("no suite tasks (%v)", err)
	}
	var walls, each []time.Duration
	loadStart := loadAvg(b)
	for i := 0; i < b.N; i++ {
		work := b.TempDir()
		var suite []*tasks.Task
		for _, f := range dirs {
			dst := filepath.Join(work, filepath.Base(filepath.Dir(f)))
			if _, err := runTool(context.Background(), nil, nil, "cp", "-a", filepath.Dir(f), dst); err != nil {
				b.Fatal(err)
			}
			task, err := tasks.Load(dst)
			if err != nil {
				b.Fatal(err)
			}
			os.WriteFile(filepath.Join(task.ContextDir(), ".nonce"), []byte(time.Now().String()), 0o644)
			suite = append(suite, task)
		}
		durs := make([]time.Duration, len(suite))
		rootfs := make([]string, len(suite))
		errs := make([]error, len(suite))
		next := make(chan int)
		var wg sync.WaitGroup
		start := time.Now()
		for w := 0; w < jobs; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := range next {
					t0 := time.Now()
					img, built, err := BuildTask(context.Background(), s, suite[k], BuildOptions{Builder: bld, Base: base})
					if err == nil && !built {
						err = fmt.Errorf("reused a cached image")
					}
					if err == nil {
						rootfs[k] = img.Rootfs
					}
					durs[k], errs[k] = time.Since(t0), err
				}
			}()
		}
		for k := range suite {
			next <- k
		}
		close(next)
		wg.Wait()
		walls = append(walls, time.Since(start))
		each = append(each, durs...)
		for k, err := range errs {
			if err != nil {
				b.Errorf("%s: %v", suite[k].Name, err)
			}
			if rootfs[k] != "" {
				os.RemoveAll(filepath.Dir(rootfs[k]))
			}
		}
		b.Logf("%d images, %d at a time: %.1fs (slowest %.1fs)", len(suite), jobs, walls[len(walls)-1].Seconds(), slowest(durs).Seconds())
	}
	b.ReportMetric(median(walls, time.Second), "suite-s")
	b.ReportMetric(median(each, time.Second), "image-s-median")
	b.ReportMetric(float64(len(dirs)), "images")
	b.ReportMetric(float64(jobs), "jobs")
	b.ReportMetric(loadStart, "load1-start")
	b.ReportMetric(loadAvg(b), "load1-end")
}

func slowest(ds []time.Duration) time.Duration {
	var m time.Duration
	for _, d := range ds {
		m = max(m, d)
	}
	return m
}

// loadAvg is the machine's one-minute load average.
func loadAvg(b *testing.B) float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		b.Fatal(err)
	}
	v, err := strconv.ParseFloat(strings.Fields(string(data))[0], 64)
	if err != nil {
		b.Fatal(err)
	}
	return v
}
