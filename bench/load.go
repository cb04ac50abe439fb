package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/authbench/authbench/internal/safefile"
	"github.com/authbench/authbench/trial"
)

// LoadRecords reads the records of one or more bench out dirs (shards,
// machines), in the order of the dirs. An out dir may be another user's:
// its database is copied (without following a link) into a private
// directory and read there, so nothing is written in the out dir; every
// record is checked against its result.json there (*MismatchError).
func LoadRecords(dirs ...string) ([]trial.Record, error) {
	var out []trial.Record
	for _, dir := range dirs {
		recs, err := loadRecords(dir)
		if err != nil {
			return nil, fmt.Errorf("load results of %s: %w", dir, err)
		}
		out = append(out, recs...)
	}
	return out, nil
}

func loadRecords(dir string) ([]trial.Record, error) {
	src, err := safefile.OpenReadDir(dir)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	tmp, err := os.MkdirTemp("", "authbench-report-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	copyDir, err := safefile.OpenOutDir(tmp, os.Geteuid())
	if err != nil {
		return nil, err
	}
	defer copyDir.Close()
	for _, name := range []string{DBFile, DBFile + "-wal"} {
		if err := checkDBFile(src, name); err != nil {
			return nil, err
		}
		data, err := src.ReadFile(name)
		switch {
		case errors.Is(err, fs.ErrNotExist) && name == DBFile:
			return nil, fmt.Errorf("no results database: %w", err)
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return nil, err
		}
		if err := copyDir.WriteFile(name, data, 0o600); err != nil {
			return nil, err
		}
	}
	s, err := openStore(copyDir, src)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	return s.Records()
}

// LoadSkipped reads the tasks the benches of out dirs could not run
// (their result.json), each once; an out dir without a summary yet has
// none.
func LoadSkipped(dirs ...string) ([]trial.SkippedTask, error) {
	out := []trial.SkippedTask{}
	seen := map[trial.SkippedTask]bool{}
	for _, dir := range dirs {
		data, err := readOutDirFile(dir, JobResultFile)
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

// readOutDirFile reads the file name of the out dir dir, which may be
// another user's: no link is followed on the way.
func readOutDirFile(dir, name string) ([]byte, error) {
	d, err := safefile.OpenReadDir(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.ReadFile(name)
}
