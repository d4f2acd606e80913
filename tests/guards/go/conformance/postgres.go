package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib"

	"tinystore.dev/go/guard"
)

// reader is the role that may only read tinystore_fences (permission).
const reader = "tinystore_guard_reader"

// postgresDB is the postgres backend: the server at $TINYSTORE_PG_URL
// through pgx's database/sql driver, a schema of its own per scenario.
type postgresDB struct {
	sqlDB
	url, schema string
}

func openPostgres(ctx context.Context, resource string) (*postgresDB, error) {
	url := os.Getenv("TINYSTORE_PG_URL")
	if url == "" {
		return nil, errors.New("TINYSTORE_PG_URL is unset: run under tests/guards/with-postgres.sh")
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	p := &postgresDB{url: url, schema: "matrix_go_" + hex.EncodeToString(b[:])}
	p.sqlDB = sqlDB{dialect: guard.Postgres, resource: resource}
	if err := p.admin(ctx, "create schema "+p.schema); err != nil {
		return nil, err
	}
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	var err error
	if p.db, err = sql.Open("pgx", url+sep+"search_path="+p.schema); err != nil {
		p.close()
		return nil, err
	}
	if err := p.setUp(ctx); err != nil {
		p.close()
		return nil, err
	}
	return p, nil
}

// admin runs statements on a connection of its own, outside the scenario's
// schema.
func (p *postgresDB) admin(ctx context.Context, statements ...string) error {
	db, err := sql.Open("pgx", p.url)
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }()
	for _, s := range statements {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

func (p *postgresDB) close() {
	if p.db != nil {
		_ = p.db.Close()
	}
	_ = p.admin(context.Background(), "drop schema if exists "+p.schema+" cascade")
}

// driverError tells pgx's own error of the kind: by its SQLSTATE
// (*pgconn.PgError), or database/sql's lost connection.
func (p *postgresDB) driverError(kind string, err error) bool {
	var e *pgconn.PgError
	hasState := errors.As(err, &e)
	switch kind {
	case "serialization":
		return hasState && e.Code == "40001"
	case "permission":
		return hasState && e.Code == "42501"
	case "unavailable": // the server ended the connection, or it is gone
		return hasState && (strings.HasPrefix(e.Code, "57P") || strings.HasPrefix(e.Code, "08")) ||
			errors.Is(err, driver.ErrBadConn)
	}
	return false
}

func (p *postgresDB) steps(judge judgeFunc) map[string]stepFunc {
	steps := p.sqlSteps(judge)
	// A at REPEATABLE READ takes its snapshot; B writes and commits; A's
	// check fails with SQLSTATE 40001.
	steps["serialization"] = func(ctx context.Context, a args, st step) error {
		f, between, err := fences(a)
		if err != nil {
			return err
		}
		tx, err := p.db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead})
		if err != nil {
			return err
		}
		defer func() { _ = tx.Rollback() }()
		rows, err := tx.QueryContext(ctx, "select * from tinystore_fences")
		if err != nil {
			return err
		}
		_ = rows.Close()
		if err := judge(accepted, p.write(ctx, between, nil, p.resource), between); err != nil {
			return err
		}
		return judge(st.expect("expect"), guard.Check(ctx, tx, p.dialect, p.resource, f), f)
	}
	// Inside the transaction, SET LOCAL ROLE to one that may only read.
	steps["permission"] = func(ctx context.Context, a args, st step) error {
		f, err := parse(a.Fence)
		if err != nil {
			return err
		}
		// Made once per server: another runner may have made it already.
		_ = p.admin(ctx, "create role "+reader)
		err = p.admin(ctx, "grant usage on schema "+p.schema+" to "+reader,
			"grant select on "+p.schema+".tinystore_fences to "+reader)
		if err != nil {
			return err
		}
		tx, err := p.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer func() { _ = tx.Rollback() }()
		if _, err := tx.ExecContext(ctx, "set local role "+reader); err != nil {
			return err
		}
		return judge(st.expect("expect"), guard.Check(ctx, tx, p.dialect, p.resource, f), f)
	}
	// After BEGIN, the connection is ended by pg_terminate_backend from
	// another; then the check.
	steps["server_gone"] = func(ctx context.Context, a args, st step) error {
		f, err := parse(a.Fence)
		if err != nil {
			return err
		}
		tx, err := p.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer func() { _ = tx.Rollback() }()
		var pid int
		if err := tx.QueryRowContext(ctx, "select pg_backend_pid()").Scan(&pid); err != nil {
			return err
		}
		if err := p.admin(ctx, fmt.Sprintf("select pg_terminate_backend(%d, 10000)", pid)); err != nil {
			return err
		}
		if err := judge(st.expect("expect"), guard.Check(ctx, tx, p.dialect, p.resource, f), f); err != nil {
			return err
		}
		if got, _, err := p.recorded(ctx); err != nil || got != nil {
			return fmt.Errorf("after the connection was gone the register holds %v (%v)", got, err)
		}
		return nil
	}
	return steps
}
