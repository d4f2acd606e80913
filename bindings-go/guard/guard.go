// Package guard is the other half of a fence: the comparison where the
// write lands, in the caller's own SQL transaction, on any database/sql
// driver.
//
// A guard keeps, per resource (a name the application chooses, such as
// "chats/42"), the largest fence that has written to it, in the table
// tinystore_fences, and refuses a write whose fence is smaller:
//
//	if err := guard.Ensure(ctx, db, guard.SQLite); err != nil { ... } // once
//	tx, err := db.BeginTx(ctx, nil)
//	...
//	_, err = tx.ExecContext(ctx, "update chats set summary = ? where id = ?", summary, id)
//	...
//	err = guard.Check(ctx, tx, guard.SQLite, "chats/"+id, lease.Fence)
//	var stale *tinystore.StaleError
//	if errors.As(err, &stale) { tx.Rollback(); ... } // a later holder wrote
//	...
//	err = tx.Commit()
//
// The rule: a write with fence f to resource r is accepted when no fence
// above f was recorded for r, and f is then recorded; equal is accepted,
// so one lease may write many times. Otherwise Check returns a
// *tinystore.StaleError (errors.Is(err, tinystore.ErrStale)) carrying r, f
// and the largest recorded fence; roll the transaction back, and the
// caller's own writes in it go with the refusal.
//
// The statements are tinystore's core's (the same text in every
// language), in the dialect's placeholder style. On PostgreSQL at READ
// COMMITTED two writers of one resource are serialized by the register
// row's lock until the first commits; at REPEATABLE READ and SERIALIZABLE
// the second fails with SQLSTATE 40001 instead (IsSerializationFailure):
// retry the whole transaction. On MySQL and MariaDB (MySQL) the second
// waits for the first's commit at every isolation level. The package
// imports no driver: go-sql-driver's *mysql.MySQLError, which has no
// methods to read it by, is read by its fields' shape.
//
// The check's protocol is tinystore's core's, written once for every
// language as a machine that does no I/O: this package runs the
// statements it gives on the caller's *sql.Tx and reports what they did;
// the core decides, classifies the driver's errors, and words every
// message.
package guard

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"

	"tinystore.dev/go/internal/guardio"
	"tinystore.dev/go/internal/native"
	"tinystore.dev/go/locks"
)

// A Dialect is the SQL a guard speaks and its drivers' placeholder style.
type Dialect struct {
	name, placeholders string
}

var (
	// SQLite is SQLite 3.24 or later, with ? placeholders
	// (modernc.org/sqlite, github.com/mattn/go-sqlite3).
	SQLite = Dialect{"sqlite", "?"}
	// Postgres is PostgreSQL 9.5 or later, with $1 placeholders
	// (github.com/jackc/pgx/v5/stdlib, github.com/lib/pq).
	Postgres = Dialect{"postgres", "$1"}
	// MySQL is MySQL 8 or MariaDB 10.5 or later, with ? placeholders
	// (github.com/go-sql-driver/mysql): one dialect for both, the register
	// an InnoDB table. Ensure's CREATE TABLE is DDL, which MySQL commits at
	// once with any transaction open on its connection: run it outside
	// the caller's transactions. Two writers of one resource are
	// serialized by the register row's lock at every isolation level; two
	// first writes of a new resource may deadlock instead (error 1213),
	// and under MariaDB's innodb_snapshot_isolation=ON a write to a row
	// changed since the transaction's snapshot fails with error 1020:
	// both are serialization failures (IsSerializationFailure). The
	// driver's DSN may ask for found rows (clientFoundRows=true) or not:
	// the guard is right either way.
	MySQL = Dialect{"mysql", "?"}
)

// String is the dialect's name.
func (d Dialect) String() string { return d.name }

var migrations sync.Map // Dialect -> string

// migrationOf is the core's migration of d, read once.
func migrationOf(d Dialect) (string, error) {
	if s, ok := migrations.Load(d); ok {
		return s.(string), nil
	}
	migration, _, _, err := native.GuardStatements(d.name, d.placeholders)
	if err != nil {
		return "", err
	}
	migrations.Store(d, migration)
	return migration, nil
}

// Migration is the statement that makes the register table
// tinystore_fences if it is missing, for a migrations folder. An unknown
// Dialect (the zero value) gives "".
func Migration(dialect Dialect) string {
	migration, err := migrationOf(dialect)
	if err != nil {
		return ""
	}
	return migration
}

// Execer is what Ensure runs its statement on: a *sql.DB, *sql.Conn or
// *sql.Tx.
type Execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// Ensure makes the register table tinystore_fences if it is missing; it
// is safe to run again. A driver's error is returned as Check returns
// one: of the code the core classifies it as, wrapping it.
func Ensure(ctx context.Context, db Execer, dialect Dialect) error {
	migration, err := migrationOf(dialect)
	if err != nil {
		return err
	}
	if db == nil {
		return &locks.Error{Code: locks.CodeInvalid, Message: "guard.Ensure was given a nil database handle"}
	}
	if _, err := db.ExecContext(ctx, migration); err != nil {
		return guardio.DriverError(fmt.Sprintf("making tinystore_fences on %s", dialect), err)
	}
	return nil
}

// Check checks the fence of under (a locks.Fence, or the *locks.Lease
// itself) against the largest fence recorded for resource and records it,
// inside tx. Accepted: nil, and the caller's own writes in tx commit with
// the record. Refused: a *tinystore.StaleError with the resource and both
// fences; the caller rolls tx back. Given the lease itself, a refusal is
// also told to its store, which counts the late writes refused per group
// (never blocking nor failing the check).
//
// Other errors, each a *tinystore.Error: invalid for a resource that is
// empty, over 1,024 bytes, holds a NUL or is not UTF-8, for a nil tx (a
// check outside a transaction) and for the zero Dialect; invalid for a
// missing tinystore_fences, saying how to make it, with the driver's
// error inside; corrupt, naming the resource, for a register row whose
// fence is not 40 digits. A driver's own error is returned as an error of
// the code the core classifies it as (io; unavailable for a lost
// connection; unauthorized for a refused permission) that wraps it:
// errors.As reaches the driver's type, and IsSerializationFailure tells
// a serialization failure.
//
// The statements, their order and every decision are the core's (its
// SqlCheck machine); Check runs them on tx and reports what they did.
func Check(ctx context.Context, tx *sql.Tx, dialect Dialect, resource string, under locks.Fenced) error {
	// tinystoreotel's span and counter, and a refusal told to the lease's store
	return guardio.Checked(ctx, "guard.Check", under, resource, dialect.name, func(fence locks.Fence) error {
		return check(ctx, tx, dialect, resource, fence)
	})
}

func check(ctx context.Context, tx *sql.Tx, dialect Dialect, resource string, fence locks.Fence) error {
	m, first, err := native.NewSQLCheck(dialect.name, dialect.placeholders, resource, fence.Epoch, fence.Count, tx != nil)
	if err != nil {
		return err
	}
	defer m.Free()
	return guardio.Run(m, first, func(step native.Step) (native.Observed, error) {
		return run(ctx, tx, step)
	})
}

// run runs one of the check's statements on tx.
func run(ctx context.Context, tx *sql.Tx, step native.Step) (native.Observed, error) {
	params := make([]any, len(step.Params))
	for i, p := range step.Params {
		params[i] = p
	}
	switch step.Kind {
	case native.StepExecute:
		result, err := tx.ExecContext(ctx, step.Text, params...)
		if err != nil {
			return guardio.Failed(err)
		}
		changed, err := result.RowsAffected()
		if err != nil {
			return guardio.Failed(err)
		}
		return native.Observed{Kind: native.ObservedChanged, Changed: uint64(changed)}, nil
	case native.StepQuery:
		var recorded string
		err := tx.QueryRowContext(ctx, step.Text, params...).Scan(&recorded)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return native.Observed{Kind: native.ObservedNoRow}, nil
		case err != nil:
			return guardio.Failed(err)
		}
		return native.Observed{Kind: native.ObservedRow, Row: recorded}, nil
	}
	return native.Observed{}, nil // not a SQL step: the machine says so
}

// IsSerializationFailure reports whether err is, or wraps, a driver's
// serialization failure as the core classifies it: SQLSTATE 40001 or
// 40P01 (PostgreSQL at REPEATABLE READ or SERIALIZABLE: a concurrent
// transaction wrote first), SQLite busy or locked, MySQL's and MariaDB's
// errors 1213 (deadlock), 1205 (lock wait timeout) and 1020 (a row
// changed since the snapshot). It reads the driver's
// error whether Check wrapped it or not (a failed Commit). Roll back and
// run the whole transaction again (take the fence anew only if the lease
// was lost); the retry is then decided by the rule.
func IsSerializationFailure(err error) bool {
	return guardio.IsSerializationFailure(err)
}
