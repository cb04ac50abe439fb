package bench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/authbench/authbench/runapi"
	"github.com/authbench/authbench/trial"
)

// checkRunsVerdict: each stored row's classes, primary class, deciding
// denial and first sensitive access are those its task run wrote into
// its result.json: the run classified itself, the bench stored that.
func checkRunsVerdict(t *testing.T, out string, recs []trial.Record) {
	t.Helper()
	for _, r := range recs {
		name := keyOf(&r).String()
		data, err := os.ReadFile(filepath.Join(out, r.Dir, "authbench", runapi.FileResult))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		var res runapi.TaskResult
		if err := json.Unmarshal(data, &res); err != nil || !res.Classified() {
			t.Errorf("%s: result.json carries no classification (%v)", name, err)
			continue
		}
		if !slices.Equal(res.Classes, r.Classes) || res.Primary != r.Primary || res.DecidingDenial() != r.DecidingDenial ||
			res.ExposureAccess != r.ExposureAccess {
			t.Errorf("%s: the run says %v %q %q %q, the row %v %q %q %q", name, res.Classes, res.Primary, res.DecidingDenial(), res.ExposureAccess,
				r.Classes, r.Primary, r.DecidingDenial, r.ExposureAccess)
		}
	}
}
