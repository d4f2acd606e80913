package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	_ "modernc.org/sqlite"

	"tinystore.dev/go/locks"
)

// job is the one job only the leader runs.
const job = "nightly-report"

// schema is ../schema.sql, found beside this source file when run with
// `go run`, or from the working directory's example folder.
func schema() string {
	if _, file, _, ok := runtime.Caller(0); ok {
		path := filepath.Join(filepath.Dir(file), "..", "schema.sql")
		if _, err := os.Stat(path); err == nil {
			return path
		}
	}
	return filepath.Join("examples", "scheduler", "schema.sql")
}

// openDB opens jobs.db (a 10 s busy timeout on every connection) with its
// schema.
func openDB(ctx context.Context, path string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return nil, err
	}
	script, err := os.ReadFile(schema())
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	if _, err := db.ExecContext(ctx, string(script)); err != nil {
		_ = db.Close()
		return nil, err
	}
	return db, nil
}

// runJob runs the job as the leader `by` of term `term`: counted only when
// no later leader ran it (the term kept is at most this one; `<=` lets a
// leader run it many times in its term). It gives the rows changed: 0 for
// a deposed leader.
func runJob(ctx context.Context, db *sql.DB, by string, term locks.Fence) (int64, error) {
	text := fmt.Sprintf("%040s", term)
	res, err := db.ExecContext(ctx,
		"update jobs set runs = runs + 1, last_run_by = ?, term = ? where name = ? and term <= ?",
		by, text, job, text)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// kept is what jobs.db keeps of the job: its runs, who ran it last, and
// that leader's term.
func kept(ctx context.Context, db *sql.DB) (string, error) {
	var runs int64
	var by, term string
	err := db.QueryRowContext(ctx, "select runs, last_run_by, term from jobs where name = ?", job).Scan(&runs, &by, &term)
	return fmt.Sprintf("%d run(s), last by %s with term %s", runs, by, strings.TrimLeft(term, "0")), err
}
