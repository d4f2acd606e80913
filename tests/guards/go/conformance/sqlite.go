package main

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"

	"modernc.org/sqlite"

	"tinystore.dev/go/guard"
)

// sqliteDB is the sqlite backend: a SQLite file in a temporary directory
// of its own, through modernc.org/sqlite.
type sqliteDB struct {
	sqlDB
	dir, path string
}

func openSQLite(ctx context.Context, resource string) (*sqliteDB, error) {
	dir, err := os.MkdirTemp("", "tinystore-matrix-go-")
	if err != nil {
		return nil, err
	}
	s := &sqliteDB{dir: dir, path: filepath.Join(dir, "app.db")}
	s.sqlDB = sqlDB{dialect: guard.SQLite, resource: resource}
	if s.db, err = sql.Open("sqlite", "file:"+s.path+"?_pragma=busy_timeout(5000)"); err != nil {
		s.close()
		return nil, err
	}
	if err := s.setUp(ctx); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

func (s *sqliteDB) close() {
	if s.db != nil {
		_ = s.db.Close()
	}
	_ = os.RemoveAll(s.dir)
}

// driverError tells SQLite's own error of the kind: busy (5, and its
// extended codes) or read-only (8).
func (s *sqliteDB) driverError(kind string, err error) bool {
	var e *sqlite.Error
	if !errors.As(err, &e) {
		return false
	}
	switch kind {
	case "serialization":
		return e.Code()&0xff == 5
	case "permission":
		return e.Code()&0xff == 8
	}
	return false
}

func (s *sqliteDB) steps(judge judgeFunc) map[string]stepFunc {
	steps := s.sqlSteps(judge)
	// A (in WAL mode) takes its snapshot; B writes and commits; A's check
	// then meets SQLite's busy snapshot.
	steps["serialization"] = func(ctx context.Context, a args, st step) error {
		if _, err := s.db.ExecContext(ctx, "pragma journal_mode=wal"); err != nil {
			return err
		}
		f, between, err := fences(a)
		if err != nil {
			return err
		}
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer func() { _ = tx.Rollback() }()
		rows, err := tx.QueryContext(ctx, "select * from tinystore_fences")
		if err != nil {
			return err
		}
		_ = rows.Close()
		if err := judge(accepted, s.write(ctx, between, nil, s.resource), between); err != nil {
			return err
		}
		return judge(st.expect("expect"), guard.Check(ctx, tx, s.dialect, s.resource, f), f)
	}
	// The file opened read-only.
	steps["permission"] = func(ctx context.Context, a args, st step) error {
		f, err := parse(a.Fence)
		if err != nil {
			return err
		}
		ro, err := sql.Open("sqlite", "file:"+s.path+"?mode=ro")
		if err != nil {
			return err
		}
		defer func() { _ = ro.Close() }()
		tx, err := ro.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer func() { _ = tx.Rollback() }()
		return judge(st.expect("expect"), guard.Check(ctx, tx, s.dialect, s.resource, f), f)
	}
	return steps
}
