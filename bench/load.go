package bench

import (
	"fmt"
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
