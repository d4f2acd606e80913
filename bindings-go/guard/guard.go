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
// retry the whole transaction. The package imports no driver.
package guard

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"

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
)

// String is the dialect's name.
func (d Dialect) String() string { return d.name }

type statements struct {
	migration, check, read string
}

var cache sync.Map // Dialect -> *statements

func statementsOf(d Dialect) (*statements, error) {
	if s, ok := cache.Load(d); ok {
		return s.(*statements), nil
	}
	migration, check, read, err := native.GuardStatements(d.name, d.placeholders)
	if err != nil {
		return nil, err
	}
	s, _ := cache.LoadOrStore(d, &statements{migration, check, read})
	return s.(*statements), nil
}

// Migration is the statement that makes the register table
// tinystore_fences if it is missing, for a migrations folder. An unknown
// Dialect (the zero value) gives "".
func Migration(dialect Dialect) string {
	s, err := statementsOf(dialect)
	if err != nil {
		return ""
	}
	return s.migration
}

// Execer is what Ensure runs its statement on: a *sql.DB, *sql.Conn or
// *sql.Tx.
type Execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// Ensure makes the register table tinystore_fences if it is missing; it
// is safe to run again.
func Ensure(ctx context.Context, db Execer, dialect Dialect) error {
	s, err := statementsOf(dialect)
	if err != nil {
		return err
	}
	if db == nil {
		return &locks.Error{Code: locks.CodeInvalid, Message: "guard.Ensure was given a nil database handle"}
	}
	if _, err := db.ExecContext(ctx, s.migration); err != nil {
		return dbError(fmt.Sprintf("making tinystore_fences on %s", dialect), err)
	}
	return nil
}

// Check checks fence against the largest fence recorded for resource and
// records it, inside tx. Accepted: nil, and the caller's own writes in tx
// commit with the record. Refused: a *tinystore.StaleError with the
// resource and both fences; the caller rolls tx back. Other errors: an
// invalid resource (1 to 1024 bytes of UTF-8, no NUL) or dialect, a
// missing table (invalid, saying how to make it), a register row whose
// fence is not 40 digits (corrupt, naming the resource), or the driver's
// error as an io error that wraps it (errors.As reaches the driver's).
func Check(ctx context.Context, tx *sql.Tx, dialect Dialect, resource string, fence locks.Fence) error {
	if err := native.GuardCheckResource(resource); err != nil {
		return err
	}
	s, err := statementsOf(dialect)
	if err != nil {
		return err
	}
	if tx == nil {
		return native.GuardNotInTransaction(resource)
	}
	result, err := tx.ExecContext(ctx, s.check, resource, fmt.Sprintf("%040s", fence))
	if err != nil {
		return statementError(resource, err)
	}
	changed, err := result.RowsAffected()
	if err != nil {
		return dbError(fmt.Sprintf("guarding %q: counting the rows changed", resource), err)
	}
	if changed > 0 {
		return nil
	}
	var recorded sql.NullString
	err = tx.QueryRowContext(ctx, s.read, resource).Scan(&recorded)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return statementError(resource, err)
	}
	var text *string
	if err == nil {
		text = &recorded.String
	}
	epoch, count, err := native.GuardRefused(resource, fence.Epoch, fence.Count, text)
	var refusal *locks.Error
	if errors.As(err, &refusal) && refusal.Code == locks.CodeStale {
		return &locks.StaleError{
			Resource: resource,
			Fence:    fence,
			Largest:  locks.Fence{Epoch: epoch, Count: count},
			Message:  refusal.Message,
		}
	}
	return err
}

// IsSerializationFailure reports whether err is (or wraps) a driver's
// serialization failure, SQLSTATE 40001: at REPEATABLE READ or
// SERIALIZABLE on PostgreSQL, a concurrent transaction wrote first. Roll
// back and run the whole transaction again (take the fence anew only if
// the lease was lost); the retry is then decided by the rule.
func IsSerializationFailure(err error) bool {
	return sqlState(err) == "40001"
}

// sqlState is the SQLSTATE of a driver's error: by its SQLState() method
// (pgx's *pgconn.PgError, lib/pq's *pq.Error), else from "(SQLSTATE x)"
// in its message (pgx's wording); "" when it has none.
func sqlState(err error) string {
	var coded interface{ SQLState() string }
	if errors.As(err, &coded) {
		return coded.SQLState()
	}
	if err == nil {
		return ""
	}
	message := err.Error()
	if i := strings.LastIndex(message, "(SQLSTATE "); i >= 0 {
		if j := strings.IndexByte(message[i:], ')'); j > 0 {
			return message[i+len("(SQLSTATE ") : i+j]
		}
	}
	return ""
}

// missingTable tells a driver's "no such table" from its message or
// SQLSTATE, without importing the driver.
func missingTable(err error) bool {
	if sqlState(err) == "42P01" {
		return true
	}
	message := err.Error()
	return strings.Contains(message, "no such table: tinystore_fences") ||
		strings.Contains(message, `"tinystore_fences" does not exist`)
}

func statementError(resource string, err error) error {
	if missingTable(err) {
		return native.GuardMissingTable(resource)
	}
	doing := fmt.Sprintf("guarding %q", resource)
	if IsSerializationFailure(err) {
		doing += ": a concurrent transaction wrote it first (serialization failure, SQLSTATE 40001): retry the whole transaction"
	}
	return dbError(doing, err)
}

// driverError is an io error that wraps the driver's, so that errors.Is
// matches tinystore.ErrIO and errors.As reaches the driver's own type.
type driverError struct {
	io     *locks.Error
	driver error
}

func dbError(doing string, err error) error {
	return &driverError{
		io:     &locks.Error{Code: locks.CodeIO, Message: doing + ": " + err.Error()},
		driver: err,
	}
}

func (e *driverError) Error() string   { return e.io.Error() }
func (e *driverError) Unwrap() []error { return []error{e.io, e.driver} }
