package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// LoadRecords reads the records of one or more bench out dirs (shards,
// machines), in the order of the dirs.
func LoadRecords(dirs ...string) ([]Record, error) {
	var out []Record
	for _, dir := range dirs {
		if _, err := os.Stat(filepath.Join(dir, DBFile)); err != nil {
			return nil, fmt.Errorf("load results of %s: no results database: %w", dir, err)
		}
		s, err := OpenStore(dir)
		if err != nil {
			return nil, err
		}
		recs, err := s.Records()
		s.Close()
		if err != nil {
			return nil, err
		}
		out = append(out, recs...)
	}
	return out, nil
}

// LoadSkipped reads the tasks the benches of out dirs could not run
// (their result.json), each once; an out dir without a summary yet has
// none.
func LoadSkipped(dirs ...string) ([]SkippedTask, error) {
	out := []SkippedTask{}
	seen := map[SkippedTask]bool{}
	for _, dir := range dirs {
		data, err := os.ReadFile(filepath.Join(dir, JobResultFile))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("skipped tasks of %s: %w", dir, err)
		}
		var sum Summary
		if err := json.Unmarshal(data, &sum); err != nil {
			return nil, fmt.Errorf("skipped tasks of %s: %s is not a bench's summary: %w", dir, JobResultFile, err)
		}
		for _, s := range sum.Skipped {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out, nil
}
