package bench

import (
	"database/sql"
	"strings"
)

// nullableUtility migrates a database made when runs.utility was NOT
// NULL (before a run that never started stored NULL there): SQLite
// cannot drop a constraint, so the table is copied into one of the
// current schema in one transaction. Its rows keep their values; a later
// Put of an error run stores NULL.
func nullableUtility(db *sql.DB) error {
	var notNull int
	err := db.QueryRow(`SELECT "notnull" FROM pragma_table_info('runs') WHERE name = 'utility'`).Scan(&notNull)
	if err != nil || notNull == 0 {
		return err
	}
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	for _, stmt := range []string{
		`ALTER TABLE runs RENAME TO runs_not_null`,
		strings.TrimSuffix(strings.TrimSpace(schema), ";"),
		`INSERT INTO runs (` + runColumns + `) SELECT ` + runColumns + ` FROM runs_not_null`,
		`DROP TABLE runs_not_null`,
	} {
		if _, err := tx.Exec(stmt); err != nil {
			_ = tx.Rollback()
			return err
		}
	}
	return tx.Commit()
}

// backfillVerdict fills the verdict columns a database gained after its
// rows were stored (exposure_access, network_f1) from each row's record,
// which has always carried them: the row's columns then say what its
// record says, as a row Put now writes. Rows whose record has neither
// are left NULL, which is what Put writes for them too.
func backfillVerdict(db *sql.DB) error {
	_, err := db.Exec(`UPDATE runs SET
		exposure_access = NULLIF(json_extract(record, '$.exposure_access'), ''),
		network_f1 = json_extract(record, '$.network_f1')
		WHERE exposure_access IS NULL AND network_f1 IS NULL
		AND (NULLIF(json_extract(record, '$.exposure_access'), '') IS NOT NULL OR json_extract(record, '$.network_f1') IS NOT NULL)`)
	return err
}
