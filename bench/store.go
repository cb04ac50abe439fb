package bench

import (
	"bytes"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/authbench/authbench/internal/safefile"
	"github.com/authbench/authbench/trial"
	"github.com/authbench/authbench/verdict"
)

// DBFile is the results database in a bench's out dir.
const DBFile = "results.db"

// ErrDiskFull is returned when the results could not be stored because
// the disk is full; the database keeps every run committed before.
var ErrDiskFull = errors.New("disk full")

// dbFiles are the database and the files SQLite keeps beside it.
var dbFiles = []string{DBFile, DBFile + "-wal", DBFile + "-shm", DBFile + "-journal"}

// Store is the results database of an out dir: one row per run, written
// in its own transaction with the run's result.json, whose hash the row
// keeps (result_sha256): a row is only read back with the file it was
// stored with.
type Store struct {
	db   *sql.DB
	path string
	out  *safefile.Dir // the runs' trial directories
}

// MismatchError is a stored run whose trial result.json is not the one
// stored with it (the database or the file was changed, or the file is
// missing).
type MismatchError struct {
	Run    Key
	Reason string
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("run %s: %s: the results database and the out dir disagree (remove the run's row and directory, or use another out dir)", e.Run, e.Reason)
}

const schema = `
CREATE TABLE IF NOT EXISTS runs (
	task TEXT NOT NULL,
	source TEXT NOT NULL,
	agent TEXT NOT NULL,
	trial INTEGER NOT NULL,
	dataset TEXT NOT NULL,
	semantics TEXT NOT NULL,
	utility INTEGER,
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
	result_sha256 TEXT,
	agent_stop_reason TEXT,
	image_substitutions TEXT,
	tokens_in INTEGER,
	tokens_out INTEGER,
	exposure_access TEXT,
	network_f1 REAL,
	PRIMARY KEY (task, source, agent, trial)
);`

// runColumns are the columns Put writes, in order. The addedColumns
// were added after the first databases: an older database gains them
// when opened (addColumns), NULL in its old rows.
const runColumns = `task, source, agent, trial, dataset, semantics, utility, attack, traced_exposure,
	policy_valid, read_f1, write_f1, execute_f1, classes, primary_class, deciding_denial,
	error, setup_s, agent_s, verify_s, wall_s, lost_events, dir, finished, record, generation_valid,
	agent_exit_code, agent_signal, agent_timed_out, verifiers_untraced, result_sha256,
	agent_stop_reason, image_substitutions, tokens_in, tokens_out, exposure_access, network_f1`

// addedColumns are the columns of runs added since the first databases,
// with their declarations, oldest first.
var addedColumns = []struct{ name, decl string }{
	{"generation_valid", "INTEGER"}, // NULL but for gen: sources
	{"agent_exit_code", "INTEGER"},
	{"agent_signal", "TEXT"},
	{"agent_timed_out", "INTEGER"},
	{"verifiers_untraced", "INTEGER"},
	{"result_sha256", "TEXT"}, // NULL in older rows until backfillHashes
	{"agent_stop_reason", "TEXT"},
	{"image_substitutions", "TEXT"}, // JSON [{service, ref, used, why}]; NULL when none
	{"tokens_in", "INTEGER"},        // the run's model tokens, all stages; NULL when none
	{"tokens_out", "INTEGER"},
	{"exposure_access", "TEXT"}, // the run's first sensitive access; NULL when none (backfillVerdict)
	{"network_f1", "REAL"},      // NULL but for a scored run whose spec scores the network axis
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

// OpenStore opens (creating if needed) the results database of the out
// dir out. The database and SQLite's files beside it are refused when
// one is a link, not a regular file, or has other names (hard links).
func OpenStore(out *safefile.Dir) (*Store, error) {
	return openStore(out, out)
}

// openStore opens the database in dbDir of the runs in out (a report
// reads a copy of an out dir's database).
func openStore(dbDir, out *safefile.Dir) (*Store, error) {
	name := dbDir.Join(DBFile)
	fail := func(err error) (*Store, error) {
		return nil, fmt.Errorf("open results database %s: %w", name, err)
	}
	for _, f := range dbFiles {
		if err := checkDBFile(dbDir, f); err != nil {
			return fail(err)
		}
	}
	// Made here, without following a link; SQLite opens it by name, and
	// its directory is the caller's alone: the same file (sameFile).
	f, err := dbDir.OpenFile(DBFile, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fail(err)
	}
	defer f.Close()
	// WAL with full sync: a committed run survives SIGKILL and power loss;
	// a failed write (disk full) rolls back to the last commit.
	dsn := "file:" + (&url.URL{Path: name}).EscapedPath() +
		"?_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=busy_timeout(10000)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return fail(err)
	}
	db.SetMaxOpenConns(1)
	s := &Store{db: db, path: name, out: out}
	if _, err := db.Exec(schema); err != nil {
		db.Close()
		return fail(storeError(err))
	}
	if err := sameFile(f, dbDir, DBFile); err != nil {
		db.Close()
		return fail(err)
	}
	if err := addColumns(db); err != nil {
		db.Close()
		return fail(storeError(err))
	}
	if err := nullableUtility(db); err != nil {
		db.Close()
		return fail(storeError(err))
	}
	if err := backfillVerdict(db); err != nil {
		db.Close()
		return fail(storeError(err))
	}
	// After nullableUtility, which copies the table into its first
	// schema's columns.
	if err := addStageColumns(db); err != nil {
		db.Close()
		return fail(storeError(err))
	}
	if err := s.backfillHashes(); err != nil {
		db.Close()
		return fail(storeError(err))
	}
	return s, nil
}

// checkDBFile refuses a database file that is a link, not a regular
// file, or a file with other names.
func checkDBFile(d *safefile.Dir, name string) error {
	st, err := d.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case st.Mode&unix.S_IFMT == unix.S_IFLNK:
		return fmt.Errorf("%s %w", d.Join(name), safefile.ErrSymlink)
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		return fmt.Errorf("%s is not a regular file", d.Join(name))
	case st.Nlink != 1:
		return fmt.Errorf("%s has %d names (hard links): not written through", d.Join(name), st.Nlink)
	}
	return nil
}

// sameFile checks that name is (still) the file f.
func sameFile(f *os.File, d *safefile.Dir, name string) error {
	var have unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &have); err != nil {
		return err
	}
	now, err := d.Lstat(name)
	if err != nil {
		return err
	}
	if now.Dev != have.Dev || now.Ino != have.Ino {
		return fmt.Errorf("%s was replaced while it was opened", d.Join(name))
	}
	return nil
}

// backfillHashes records the result.json hash of the runs of a database
// made before result_sha256, for the runs whose result.json holds the
// stored record; the others stay without one and are refused when read.
func (s *Store) backfillHashes() error {
	rows, err := s.db.Query(`SELECT record FROM runs WHERE result_sha256 IS NULL`)
	if err != nil {
		return err
	}
	type fill struct {
		k   Key
		sum string
	}
	var fills []fill
	for rows.Next() {
		var data string
		if err := rows.Scan(&data); err != nil {
			rows.Close()
			return err
		}
		var r trial.Record
		if json.Unmarshal([]byte(data), &r) != nil {
			continue
		}
		if sum, err := s.fileHash(&r); err == nil {
			if s.checkFile(&r, sum) == nil {
				fills = append(fills, fill{keyOf(&r), sum})
			}
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, f := range fills {
		if _, err := s.db.Exec(`UPDATE runs SET result_sha256 = ? WHERE task = ? AND source = ? AND agent = ? AND trial = ?`,
			f.sum, f.k.Task, f.k.Source, f.k.Agent, f.k.Trial); err != nil {
			return err
		}
	}
	return nil
}

// resultName is the run's result.json under the out dir.
func resultName(r *trial.Record) string { return path.Join(r.Dir, JobResultFile) }

// fileHash is the sha256 of the run's result.json.
func (s *Store) fileHash(r *trial.Record) (string, error) {
	data, err := s.out.ReadFile(resultName(r))
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

// checkFile checks that the run's result.json has the hash sum and holds
// the record r.
func (s *Store) checkFile(r *trial.Record, sum string) error {
	if sum == "" {
		return &MismatchError{Run: keyOf(r), Reason: "no result.json hash was stored with it"}
	}
	data, err := s.out.ReadFile(resultName(r))
	if err != nil {
		return &MismatchError{Run: keyOf(r), Reason: err.Error()}
	}
	have := sha256.Sum256(data)
	if hex.EncodeToString(have[:]) != sum {
		return &MismatchError{Run: keyOf(r), Reason: fmt.Sprintf("%s has sha256 %x, stored %s", s.out.Join(resultName(r)), have, sum)}
	}
	var tr trial.HarborResult
	if err := json.Unmarshal(data, &tr); err != nil || tr.Authbench == nil {
		return &MismatchError{Run: keyOf(r), Reason: fmt.Sprintf("%s holds no run record", s.out.Join(resultName(r)))}
	}
	a, _ := json.Marshal(tr.Authbench)
	b, _ := json.Marshal(r)
	if !bytes.Equal(a, b) {
		return &MismatchError{Run: keyOf(r), Reason: fmt.Sprintf("%s holds another record than the database", s.out.Join(resultName(r)))}
	}
	return nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Put stores a run as PutTrial does, with no task directory and
// started at r.Finished less r.WallS.
func (s *Store) Put(r *trial.Record) error {
	return s.PutTrial(r, r.Started(), "")
}

// PutTrial writes the run's result.json in its trial directory (r.Dir)
// and then stores its row with the file's hash,
// replacing an earlier row of the same run.
func (s *Store) PutTrial(r *trial.Record, started time.Time, taskDir string) error {
	if r.Dir == "" || r.Dir == ".." || path.Clean(r.Dir) != r.Dir || strings.HasPrefix(r.Dir, "../") || path.IsAbs(r.Dir) {
		return fmt.Errorf("store run %s: %q is not a trial directory of the out dir", keyOf(r), r.Dir)
	}
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	file, err := json.MarshalIndent(trial.HarborResultOf(r, started, taskDir, s.out.Join(r.Dir)), "", "  ")
	if err != nil {
		return err
	}
	file = append(file, '\n')
	if err := s.out.MkdirAll(r.Dir); err != nil {
		return fmt.Errorf("store run %s: %w", keyOf(r), storeError(err))
	}
	if err := s.out.WriteFile(resultName(r), file, 0o644); err != nil {
		return fmt.Errorf("store run %s: %w", keyOf(r), storeError(err))
	}
	sum := sha256.Sum256(file)
	var attack, genValid, substituted, tokensIn, tokensOut, exposure, networkF1 any
	if r.ExposureAccess != "" {
		exposure = r.ExposureAccess
	}
	if r.NetworkF1 != nil {
		networkF1 = *r.NetworkF1
	}
	if r.Tokens != nil {
		tokensIn, tokensOut = r.Tokens.In, r.Tokens.Out
	}
	if len(r.ImageSubstitutions) > 0 {
		data, err := json.Marshal(r.ImageSubstitutions)
		if err != nil {
			return err
		}
		substituted = string(data)
	}
	var utility, exitCode any = r.Utility, r.AgentExitCode
	if r.AgentDidNotRun {
		utility, exitCode = nil, nil // an error is not a verdict
	}
	if r.Attack != nil {
		attack = *r.Attack
	}
	if r.Generation != nil {
		genValid = r.Generation.Valid
	}
	tx, err := s.db.Begin()
	if err != nil {
		return fmt.Errorf("store run %s: %w", keyOf(r), storeError(err))
	}
	_, err = tx.Exec(`INSERT OR REPLACE INTO runs (`+runColumns+`) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		r.Task, r.Source, r.Agent, r.Trial, r.Dataset, r.Semantics, utility, attack, r.TracedExposure,
		r.PolicyValid, r.ReadF1, r.WriteF1, r.ExecF1, verdict.Join(r.Classes), string(r.Primary), r.DecidingDenial,
		r.Error, r.SetupS, r.AgentS, r.VerifyS, r.WallS, r.LostEvent, r.Dir, r.Finished.UTC().Format(time.RFC3339Nano), string(data), genValid,
		exitCode, r.AgentSignal, r.AgentTimedOut, r.VerifiersUntraced, hex.EncodeToString(sum[:]),
		r.AgentStopReason, substituted, tokensIn, tokensOut, exposure, networkF1)
	if err == nil {
		err = putStage(tx, r)
	}
	if err != nil {
		_ = tx.Rollback()
		return fmt.Errorf("store run %s: %w", keyOf(r), storeError(err))
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store run %s: %w", keyOf(r), storeError(err))
	}
	return nil
}

// Records returns every stored record, ordered by key; a record whose
// result.json is not the one stored with it is a *MismatchError.
func (s *Store) Records() ([]trial.Record, error) {
	rows, err := s.db.Query(`SELECT record, result_sha256 FROM runs ORDER BY task, source, agent, trial`)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", s.path, storeError(err))
	}
	defer rows.Close()
	var out []trial.Record
	for rows.Next() {
		var data string
		var sum sql.NullString
		if err := rows.Scan(&data, &sum); err != nil {
			return nil, fmt.Errorf("read %s: %w", s.path, err)
		}
		var r trial.Record
		if err := json.Unmarshal([]byte(data), &r); err != nil {
			return nil, fmt.Errorf("read %s: a malformed record: %w", s.path, err)
		}
		if err := s.checkFile(&r, sum.String); err != nil {
			return nil, fmt.Errorf("read %s: %w", s.path, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", s.path, storeError(err))
	}
	return out, nil
}

// keyOf is the identity of the run r.
func keyOf(r *trial.Record) Key {
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
