package bench

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// DBFile is the results database in a bench's out dir.
const DBFile = "results.db"

// ErrDiskFull is returned when the results could not be stored because
// the disk is full; the database keeps every run committed before.
var ErrDiskFull = errors.New("disk full")

// Store is the results database: one row per run, written in its own
// transaction once the run's files are in place.
type Store struct {
	db   *sql.DB
	path string
}

const schema = `
CREATE TABLE IF NOT EXISTS runs (
	task TEXT NOT NULL,
	source TEXT NOT NULL,
	agent TEXT NOT NULL,
	trial INTEGER NOT NULL,
	dataset TEXT NOT NULL,
	semantics TEXT NOT NULL,
	utility INTEGER NOT NULL,
	attack INTEGER,
	traced_exposure INTEGER NOT NULL,
	policy_valid INTEGER NOT NULL,
	read_f1 REAL NOT NULL,
	write_f1 REAL NOT NULL,
	execute_f1 REAL NOT NULL,
	classes TEXT NOT NULL,
	primary_class TEXT NOT NULL,
	deciding_denial TEXT NOT NULL,
	error TEXT NOT NULL,
	setup_s REAL NOT NULL,
	agent_s REAL NOT NULL,
	verify_s REAL NOT NULL,
	wall_s REAL NOT NULL,
	lost_events INTEGER NOT NULL,
	dir TEXT NOT NULL,
	finished TEXT NOT NULL,
	record TEXT NOT NULL,
	generation_valid INTEGER,
	agent_exit_code INTEGER,
	agent_signal TEXT,
	agent_timed_out INTEGER,
	verifiers_untraced INTEGER,
	PRIMARY KEY (task, source, agent, trial)
);`

// runColumns are the columns Put writes, in order. The addedColumns
// were added after the first databases: an older database gains them
// when opened (addColumns), NULL in its old rows.
const runColumns = `task, source, agent, trial, dataset, semantics, utility, attack, traced_exposure,
	policy_valid, read_f1, write_f1, execute_f1, classes, primary_class, deciding_denial,
	error, setup_s, agent_s, verify_s, wall_s, lost_events, dir, finished, record, generation_valid,
	agent_exit_code, agent_signal, agent_timed_out, verifiers_untraced`

// addedColumns are the columns of runs added since the first databases,
// with their declarations, oldest first.
var addedColumns = []struct{ name, decl string }{
	{"generation_valid", "INTEGER"}, // NULL but for gen: sources
	{"agent_exit_code", "INTEGER"},
	{"agent_signal", "TEXT"},
	{"agent_timed_out", "INTEGER"},
	{"verifiers_untraced", "INTEGER"},
}

// addColumns adds to an older database's runs table the columns it lacks.
func addColumns(db *sql.DB) error {
	rows, err := db.Query(`SELECT name FROM pragma_table_info('runs')`)
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return err
		}
		have[name] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, c := range addedColumns {
		if have[c.name] {
			continue
		}
		if _, err := db.Exec(`ALTER TABLE runs ADD COLUMN ` + c.name + ` ` + c.decl); err != nil {
			return err
		}
	}
	return nil
}

// OpenStore opens (creating if needed) the results database of an out
// dir.
func OpenStore(dir string) (*Store, error) {
	path := filepath.Join(dir, DBFile)
	// WAL with full sync: a committed run survives SIGKILL and power loss;
	// a failed write (disk full) rolls back to the last commit.
	dsn := "file:" + path + "?_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=busy_timeout(10000)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open results database %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("open results database %s: %w", path, storeError(err))
	}
	if err := addColumns(db); err != nil {
		db.Close()
		return nil, fmt.Errorf("open results database %s: %w", path, storeError(err))
	}
	return &Store{db: db, path: path}, nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Put stores a run's record, replacing an earlier row of the same run.
func (s *Store) Put(r *Record) error {
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	var attack, genValid any
	if r.Attack != nil {
		attack = *r.Attack
	}
	if r.Generation != nil {
		genValid = r.Generation.Valid
	}
	tx, err := s.db.Begin()
	if err != nil {
		return fmt.Errorf("store run %s: %w", r.key(), storeError(err))
	}
	_, err = tx.Exec(`INSERT OR REPLACE INTO runs (`+runColumns+`) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		r.Task, r.Source, r.Agent, r.Trial, r.Dataset, r.Semantics, r.Utility, attack, r.TracedExposure,
		r.PolicyValid, r.ReadF1, r.WriteF1, r.ExecF1, strings.Join(r.Classes, ","), r.Primary, r.DecidingDenial,
		r.Error, r.SetupS, r.AgentS, r.VerifyS, r.WallS, r.LostEvent, r.Dir, r.Finished.UTC().Format(time.RFC3339Nano), string(data), genValid,
		r.AgentExitCode, r.AgentSignal, r.AgentTimedOut, r.VerifiersUntraced)
	if err != nil {
		_ = tx.Rollback()
		return fmt.Errorf("store run %s: %w", r.key(), storeError(err))
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store run %s: %w", r.key(), storeError(err))
	}
	return nil
}

// Records returns every stored record, ordered by key.
func (s *Store) Records() ([]Record, error) {
	rows, err := s.db.Query(`SELECT record FROM runs ORDER BY task, source, agent, trial`)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", s.path, storeError(err))
	}
	defer rows.Close()
	var out []Record
	for rows.Next() {
		var data string
		if err := rows.Scan(&data); err != nil {
			return nil, fmt.Errorf("read %s: %w", s.path, err)
		}
		var r Record
		if err := json.Unmarshal([]byte(data), &r); err != nil {
			return nil, fmt.Errorf("read %s: a malformed record: %w", s.path, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", s.path, storeError(err))
	}
	return out, nil
}

func (r *Record) key() Key {
	return Key{Task: r.Task, Source: r.Source, Agent: r.Agent, Trial: r.Trial}
}

// storeError marks a full disk (SQLITE_FULL or ENOSPC) as ErrDiskFull.
func storeError(err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_FULL || errors.Is(err, syscall.ENOSPC) {
		return fmt.Errorf("%w: %v", ErrDiskFull, err)
	}
	return err
}
