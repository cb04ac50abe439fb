package policy

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestScoreJSONRoundTrip: a score read back from its JSON (a run record
// crossing the API) is the score written.
func TestScoreJSONRoundTrip(t *testing.T) {
	cov := 0.5
	for _, sc := range []*Score{
		{Valid: true, Axes: [len(Axes)]AxisScore{{1, 0.5, 2.0 / 3}, {0, 0, 0}, {0.25, 1, 0.4}}, SensitiveCoverage: &cov},
		{Valid: true, Axes: [len(Axes)]AxisScore{{1, 1, 1}, {1, 1, 1}, {1, 1, 1}}},
		{Error: "bad policy"},
	} {
		data, err := json.Marshal(sc)
		if err != nil {
			t.Fatal(err)
		}
		var back Score
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(&back, sc) {
			t.Errorf("%s read back as %+v", data, back)
		}
	}
}
