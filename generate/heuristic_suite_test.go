package generate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/env"
	"github.com/authbench/authbench/env/imagemeta"
	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/policy"
	"github.com/authbench/authbench/taskrun"
	"github.com/authbench/authbench/tasks"
)

// suiteSample are the suite tasks TestHeuristicSuiteScores scores by
// default (their images are built when missing: the whole suite's would
// take most of CI's time on a fresh machine).
var suiteSample = []string{"data-sales-report", "sysadmin-cron-backup", "swe-fix-c-build", "vcs-purge-build-output"}

// TestHeuristicSuiteScores scores the heuristic generator against tasks
// of the built-in suite (images from the shared test cache; missing ones
// are built) and checks its macro F1 per axis stays above a floor: over
// suiteSample, or with AUTHBENCH_SUITE_SCORES=1 (make heuristic-scores)
// over every task. The table it logs is the heuristic's row of Table 1
// (docs/generate.md).
func TestHeuristicSuiteScores(t *testing.T) {
	testenv.NeedRoot(t)
	all := os.Getenv("AUTHBENCH_SUITE_SCORES") == "1"
	dirs, err := tasks.Discover(filepath.Join("..", "tasks", "suite"))
	if err != nil {
		t.Fatal(err)
	}
	if !all {
		dirs = dirs[:0]
		for _, name := range suiteSample {
			dirs = append(dirs, filepath.Join("..", "tasks", "suite", name))
		}
	}
	images := env.Store{Dir: testenv.ImagesDir()}
	var sum [len(policy.Axes)][3]float64
	n := 0
	var rows []string
	for _, d := range dirs {
		task, err := tasks.Load(d)
		if err != nil || task.Spec == nil {
			t.Fatalf("task %s: %v", d, err)
		}
		img, err := taskrun.BuildImage(context.Background(), taskrun.Options{Task: task, Images: images,
			Builder: env.NewBuilder(imagemeta.Buildah, images)}, t.TempDir())
		if err != nil {
			t.Fatalf("image of %s: %v", task.Name, err)
		}
		root, err := policy.NewRoot(img.Rootfs)
		if err != nil {
			t.Fatal(err)
		}
		pol := Heuristic(root, task.Instruction, img.Config.WorkingDir, imagePath(img.Config.Env))
		sc, err := policy.ScorePolicy(pol, task.Spec, root)
		if err != nil || !sc.Valid {
			t.Fatalf("score %s: %v %+v", task.Name, err, sc)
		}
		row := task.Name
		for _, a := range policy.Axes {
			x := sc.Axes[a]
			sum[a][0] += x.Precision
			sum[a][1] += x.Recall
			sum[a][2] += x.F1
			row += fmt.Sprintf(" %s P=%.2f R=%.2f F1=%.2f", a, x.Precision, x.Recall, x.F1)
		}
		rows = append(rows, row)
		n++
	}
	t.Logf("per task:\n%s", strings.Join(rows, "\n"))
	// Floors a little under the measured macro F1: over the suite 0.66,
	// 0.54, 0.44; over the sample 0.64, 0.81, 0.42.
	floor := [len(policy.Axes)]float64{policy.Read: 0.6, policy.Write: 0.5, policy.Execute: 0.4}
	if !all {
		floor = [len(policy.Axes)]float64{policy.Read: 0.55, policy.Write: 0.7, policy.Execute: 0.35}
	}
	for _, a := range policy.Axes {
		p, r, f := sum[a][0]/float64(n), sum[a][1]/float64(n), sum[a][2]/float64(n)
		t.Logf("heuristic macro over %d tasks: %-7s P=%.3f R=%.3f F1=%.3f", n, a, p, r, f)
		if f < floor[a] {
			t.Errorf("%s macro F1 %.3f is below the floor %.2f", a, f, floor[a])
		}
	}
}
