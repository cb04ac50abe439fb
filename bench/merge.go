package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/authbench/authbench/internal/safefile"
	"github.com/authbench/authbench/trial"
)

// MergeSummary is what Merge did.
type MergeSummary struct {
	// Shards are the shard dirs merged, Count their shard count (N of
	// --shard I/N); Missing the shard indexes of 0..Count-1 not among
	// them (their runs are not in the merged dir yet).
	Shards  []string `json:"shards"`
	Count   int      `json:"shard_count"`
	Missing []int    `json:"missing_shards"`
	// Unfinished are the shard dirs whose bench did not finish (an array
	// task that failed or was cancelled): resume them and merge again.
	Unfinished []string `json:"unfinished_shards,omitempty"`
	// Added runs were new to the out dir, Replaced ones replaced a
	// stored run that had ended in an error, Kept ones were there
	// already with the same record.
	Added    int `json:"added"`
	Replaced int `json:"replaced"`
	Kept     int `json:"kept"`
	// Skipped are the trial directories' entries not copied: links,
	// devices, FIFOs and sockets (a bench writes none).
	Skipped []string `json:"skipped_entries,omitempty"`
	// Summary is the merged dir's result.json.
	Summary Summary `json:"summary"`
}

// ShardMismatchError is a shard whose settings differ from the first
// shard's, or a shard given with another shard count.
type ShardMismatchError struct {
	Shard, First string
	Setting      string
	Have, Want   any
}

func (e *ShardMismatchError) Error() string {
	return fmt.Sprintf("shard %s was run with %s %s, shard %s with %s: only shards of one bench merge",
		e.Shard, e.Setting, jsonText(e.Have), e.First, jsonText(e.Want))
}

// ConflictError is one run stored with two different finished records:
// by two shards, or by a shard and the merged dir.
type ConflictError struct {
	Run         Key
	Shard, Have string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("run %s: shard %s holds another finished record than %s: the shards overlap with different results", e.Run, e.Shard, e.Have)
}

// Merge merges the out dirs of the shards of one bench (`bench --shard
// I/N`, every one with the same settings and N) into the out dir out:
// one results database and Harbor's job layout, as one unsharded bench
// would have written (its settings are the shards' with --shard 0/1, so
// the same bench resumed in out runs only what no shard stored). Merging
// again is idempotent: a run already in out with the same record is
// kept, one that had ended in an error is replaced by a shard's finished
// run; two finished records of one run that differ are a
// *ConflictError, shards of different settings a *ShardMismatchError.
// Shards may be missing (a failed array task): Missing names them, and
// merging again once they are done adds their runs.
func Merge(out string, shards []string, version string) (*MergeSummary, error) {
	if len(shards) == 0 {
		return nil, fmt.Errorf("merge: no shard dir")
	}
	settings, count, given, err := shardSettings(shards)
	if err != nil {
		return nil, err
	}
	od, err := safefile.OpenOutDir(out, os.Geteuid())
	if err != nil {
		return nil, fmt.Errorf("out dir: %w", err)
	}
	defer od.Close()
	abs, err := filepath.Abs(out)
	if err != nil {
		return nil, err
	}
	cfg := configOf(settings, abs)
	if err := claimOutDir(&cfg, od, version); err != nil {
		return nil, err
	}
	store, err := OpenStore(od)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	m := &merger{out: od, store: store, sum: &MergeSummary{Shards: shards, Count: count}, owner: map[Key]string{}}
	if err := m.index(abs); err != nil {
		return nil, err
	}
	for _, dir := range shards {
		if err := m.mergeShard(dir); err != nil {
			return nil, fmt.Errorf("merge shard %s: %w", dir, err)
		}
	}
	if err := m.finish(shards, given); err != nil {
		return nil, err
	}
	return m.sum, nil
}

// shardSettings checks that the shards are of one bench and returns its
// settings (with --shard 0/1), the shard count and the shard indexes given.
func shardSettings(shards []string) (Settings, int, map[int]bool, error) {
	var first Settings
	var count int
	given := map[int]bool{}
	for i, dir := range shards {
		s, err := LoadSettings(dir)
		if err != nil {
			return Settings{}, 0, nil, err
		}
		sh, err := ParseShard(s.Shard)
		if err != nil {
			return Settings{}, 0, nil, fmt.Errorf("shard %s: its config.json: %w", dir, err)
		}
		if i == 0 {
			first, count = s, sh.Count
		}
		if sh.Count != count {
			return Settings{}, 0, nil, &ShardMismatchError{Shard: dir, First: shards[0], Setting: "--shard", Have: s.Shard, Want: first.Shard}
		}
		given[sh.Index] = true
		have, want := s, first
		have.Shard, want.Shard = "", ""
		if err := compareSettings(dir, have, want); err != nil {
			var sm *SettingsMismatchError
			if errors.As(err, &sm) {
				return Settings{}, 0, nil, &ShardMismatchError{Shard: dir, First: shards[0], Setting: sm.Setting, Have: sm.Have, Want: sm.Want}
			}
			return Settings{}, 0, nil, err
		}
	}
	first.Shard = Shard{Count: 1}.String()
	return first, count, given, nil
}

// configOf is the configuration whose settings are s, writing to out.
func configOf(s Settings, out string) Config {
	c := Config{TasksDir: s.Tasks, Agent: s.Agent, Trials: s.Trials, Parallel: 1, Shard: Shard{Count: 1},
		Semantics: s.Semantics, Caps: s.Caps, AgentAllowHosts: s.AllowHosts, TrustVerifiers: s.TrustVerifiers, BaseMap: s.BaseMap, Out: out,
		Requests: s.Requests, MaxRequests: s.MaxRequests, RequestTimeoutS: s.RequestTimeoutS}
	for _, name := range s.Sources {
		c.Sources = append(c.Sources, Source{Name: name})
	}
	return c
}

type merger struct {
	out   *safefile.Dir
	store *Store
	sum   *MergeSummary
	// have are the records in the out dir, owner where each came from.
	have  map[Key]trial.Record
	owner map[Key]string
}

// index reads the runs already in the out dir.
func (m *merger) index(out string) error {
	recs, err := m.store.Records()
	if err != nil {
		return err
	}
	m.have = map[Key]trial.Record{}
	for _, r := range recs {
		m.have[keyOf(&r)] = r
		m.owner[keyOf(&r)] = out
	}
	return nil
}

func (m *merger) mergeShard(dir string) error {
	recs, err := LoadRecords(dir)
	if err != nil {
		return err
	}
	src, err := safefile.OpenReadDir(dir)
	if err != nil {
		return err
	}
	defer src.Close()
	for i := range recs {
		if err := m.mergeRun(src, dir, &recs[i]); err != nil {
			return err
		}
	}
	return nil
}

// mergeRun copies one run of a shard into the out dir, unless the out
// dir holds it already.
func (m *merger) mergeRun(src *safefile.Dir, shard string, r *trial.Record) error {
	k := keyOf(r)
	if have, ok := m.have[k]; ok {
		same, err := sameRecord(&have, r)
		switch {
		case err != nil:
			return err
		case same:
			m.sum.Kept++
			return nil
		case r.Error != "":
			// A shard's error never replaces a run stored before.
			m.sum.Kept++
			return nil
		case have.Error == "":
			return &ConflictError{Run: k, Shard: shard, Have: m.owner[k]}
		}
		m.sum.Replaced++
	} else {
		m.sum.Added++
	}
	var hr trial.HarborResult
	data, err := src.ReadFile(path.Join(r.Dir, JobResultFile))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, &hr); err != nil {
		return fmt.Errorf("run %s: %s: %w", k, src.Join(path.Join(r.Dir, JobResultFile)), err)
	}
	if err := m.out.RemoveAll(r.Dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("run %s: %w", k, err)
	}
	skipped, err := copyTree(src, m.out, r.Dir)
	if err != nil {
		return fmt.Errorf("run %s: %w", k, storeError(err))
	}
	m.sum.Skipped = append(m.sum.Skipped, skipped...)
	if err := m.store.PutTrial(r, hr.StartedAt, hr.TaskID.Path); err != nil {
		return err
	}
	m.have[k], m.owner[k] = *r, shard
	return nil
}

// sameRecord tells whether two records of one run are the same.
func sameRecord(a, b *trial.Record) (bool, error) {
	x, err := json.Marshal(a)
	if err != nil {
		return false, err
	}
	y, err := json.Marshal(b)
	if err != nil {
		return false, err
	}
	return string(x) == string(y), nil
}

// finish writes the merged dir's result.json: the runs' stats, the
// shards' total and skipped tasks, and names the shards not given.
func (m *merger) finish(shards []string, given map[int]bool) error {
	sum := Summary{ID: filepath.Base(m.out.Path()), Skipped: []trial.SkippedTask{}}
	finished := true
	for _, dir := range shards {
		data, err := readOutDirFile(dir, JobResultFile)
		if err != nil {
			return fmt.Errorf("shard %s: its summary: %w", dir, err)
		}
		var ss Summary
		if err := json.Unmarshal(data, &ss); err != nil {
			return fmt.Errorf("shard %s: its %s: %w", dir, JobResultFile, err)
		}
		sum.NTotal += ss.NTotal
		if sum.StartedAt.IsZero() || ss.StartedAt.Before(sum.StartedAt) {
			sum.StartedAt = ss.StartedAt
		}
		if ss.FinishedAt == nil {
			finished = false
			m.sum.Unfinished = append(m.sum.Unfinished, dir)
		}
	}
	skipped, err := LoadSkipped(shards...)
	if err != nil {
		return err
	}
	sum.Skipped = append(sum.Skipped, skipped...)
	for i := 0; i < m.sum.Count; i++ {
		if !given[i] {
			m.sum.Missing = append(m.sum.Missing, i)
		}
	}
	for _, r := range m.have {
		tally(&sum.Stats, &r, false)
	}
	if finished && len(m.sum.Missing) == 0 {
		now := time.Now().UTC()
		sum.FinishedAt = &now
	}
	m.sum.Summary = sum
	return writeJSONFile(m.out, JobResultFile, sum)
}
