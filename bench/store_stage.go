package bench

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/authbench/authbench/trial"
)

// stageColumns are the pipeline's columns of runs: a bench --pipeline
// run's stage and attempt number (its trial); NULL for other runs and in
// databases made before them, which gain the columns when opened.
var stageColumns = []struct{ name, decl string }{
	{"stage", "TEXT"},
	{"attempt", "INTEGER"},
}

// addStageColumns adds the stage columns to a database that lacks them.
func addStageColumns(db *sql.DB) error {
	for _, c := range stageColumns {
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM pragma_table_info('runs') WHERE name = ?`, c.name).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			continue
		}
		if _, err := db.Exec(`ALTER TABLE runs ADD COLUMN ` + c.name + ` ` + c.decl); err != nil {
			return fmt.Errorf("add column %s: %w", c.name, err)
		}
	}
	return nil
}

// putStage sets the stage columns of r's row in the transaction that
// stores it (NULL for a run of no stage).
func putStage(tx *sql.Tx, r *trial.Record) error {
	var stage, attempt any
	if r.Stage != "" {
		stage, attempt = r.Stage, r.Trial
	}
	_, err := tx.Exec(`UPDATE runs SET stage = ?, attempt = ? WHERE task = ? AND source = ? AND agent = ? AND trial = ?`,
		stage, attempt, r.Task, r.Source, r.Agent, r.Trial)
	return err
}

// Record returns the stored record of the run k (nil when none is); a
// record whose result.json is not the one stored with it is a
// *MismatchError.
func (s *Store) Record(k Key) (*trial.Record, error) {
	var data string
	var sum sql.NullString
	err := s.db.QueryRow(`SELECT record, result_sha256 FROM runs WHERE task = ? AND source = ? AND agent = ? AND trial = ?`,
		k.Task, k.Source, k.Agent, k.Trial).Scan(&data, &sum)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read run %s from %s: %w", k, s.path, storeError(err))
	}
	var r trial.Record
	if err := json.Unmarshal([]byte(data), &r); err != nil {
		return nil, fmt.Errorf("read run %s from %s: a malformed record: %w", k, s.path, err)
	}
	if err := s.checkFile(&r, sum.String); err != nil {
		return nil, fmt.Errorf("read %s: %w", s.path, err)
	}
	return &r, nil
}

// StageCount is how many stored runs of a stage had each attempt number.
type StageCount struct {
	Stage   string
	Attempt int
	Runs    int
}

// StageCounts counts the stored runs per stage and attempt (the
// pipeline's columns), in stage order of trial.StageOrder then attempt.
func (s *Store) StageCounts() ([]StageCount, error) {
	rows, err := s.db.Query(`SELECT stage, attempt, count(*) FROM runs WHERE stage IS NOT NULL GROUP BY stage, attempt ORDER BY attempt`)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", s.path, storeError(err))
	}
	defer rows.Close()
	var out []StageCount
	for rows.Next() {
		var c StageCount
		if err := rows.Scan(&c.Stage, &c.Attempt, &c.Runs); err != nil {
			return nil, fmt.Errorf("read %s: %w", s.path, err)
		}
		out = append(out, c)
	}
	sortStageCounts(out)
	return out, rows.Err()
}

func sortStageCounts(cs []StageCount) {
	less := func(a, b StageCount) bool {
		ia, ib := indexOf(trial.StageOrder, a.Stage), indexOf(trial.StageOrder, b.Stage)
		if ia != ib {
			return ia < ib
		}
		return a.Attempt < b.Attempt
	}
	for i := 1; i < len(cs); i++ {
		for j := i; j > 0 && less(cs[j], cs[j-1]); j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
}
