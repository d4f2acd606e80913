package guard_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"

	"modernc.org/sqlite"

	"tinystore.dev/go/guard"
	"tinystore.dev/go/locks"
	"tinystore.dev/go/tinystore"
)

// Every case of vectors/behaviour.json's "guard" section, on each backend:
// in one transaction a row into notes and the check; commit when it
// returns, roll back when it fails; then what notes and the register hold.
func TestEveryGuardVector(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends(t) {
		for _, c := range vectorCases(t) {
			t.Run(b.name+"/"+c.ID, func(t *testing.T) {
				db := b.open(t)
				exec(t, db, b.dialect, "create table notes(resource text, fence text)")
				if c.hasTable() {
					for range 2 { // Ensure is safe to run again
						if err := guard.Ensure(ctx, db, b.dialect); err != nil {
							t.Fatal(err)
						}
					}
				}
				if c.Recorded != nil {
					exec(t, db, b.dialect, "insert into tinystore_fences values ('chats/42', ?)", *c.Recorded)
				}
				resource, f := c.resource(t), fence(t, c.Fence)
				tx, err := db.BeginTx(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				exec(t, tx, b.dialect, "insert into notes values (?, ?)", resource, fmt.Sprintf("%040s", f))
				outcome := guard.Check(ctx, tx, b.dialect, resource, f)
				if outcome == nil {
					err = tx.Commit()
				} else {
					err = tx.Rollback()
				}
				if err != nil {
					t.Fatal(err)
				}
				registered := ""
				if c.hasTable() {
					registered = register(t, db, b.dialect, resource)
				}
				judge(t, c, resource, f, outcome, count(t, db, "notes"), registered)
			})
		}
	}
}

func judge(t *testing.T, c vectorCase, resource string, f locks.Fence, outcome error, notes int, registered string) {
	t.Helper()
	if c.Expect == "accepted" {
		if outcome != nil {
			t.Fatalf("refused: %v", outcome)
		}
		if notes != 1 {
			t.Errorf("the accepted write's own row is missing")
		}
		if registered != c.RecordedAfter {
			t.Errorf("register holds %q; want %q", registered, c.RecordedAfter)
		}
		return
	}
	var e *locks.Error
	if !errors.As(outcome, &e) || string(e.Code) != c.Expect {
		t.Fatalf("got %v; want a %s error", outcome, c.Expect)
	}
	if !errors.Is(outcome, locks.Code(c.Expect)) {
		t.Errorf("errors.Is(%v, %s) is false", outcome, c.Expect)
	}
	if !strings.Contains(e.Message, c.MessageHas) {
		t.Errorf("message %q does not name %q", e.Message, c.MessageHas)
	}
	var stale *tinystore.StaleError
	if errors.As(outcome, &stale) != (c.Expect == "stale") {
		t.Errorf("errors.As(%v, *StaleError) for code %s", outcome, c.Expect)
	}
	if c.Largest != "" {
		if stale == nil || stale.Largest.String() != c.Largest || stale.Fence != f || stale.Resource != resource {
			t.Errorf("stale carries %+v; want resource %q, fence %s, largest %s", stale, resource, f, c.Largest)
		}
	}
	if notes != 0 {
		t.Errorf("a refused write left its own row")
	}
	want := ""
	if c.Recorded != nil {
		want = *c.Recorded
	}
	if c.hasTable() && registered != want {
		t.Errorf("a refused write changed the register: %q; it held %q", registered, want)
	}
}

// The seed's scene on the guard: B's fence 8 saves a summary; A, late
// with fence 7, saves in the same transaction as its check, and its
// update goes with the refusal. One lease writes twice.
func TestARefusalRollsBackTheCallersWriteAndALeaseWritesTwice(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			db := b.open(t)
			if err := guard.Ensure(ctx, db, b.dialect); err != nil {
				t.Fatal(err)
			}
			exec(t, db, b.dialect, "create table chats(id text primary key, summary text)")
			exec(t, db, b.dialect, "insert into chats values ('42', '')")
			save := func(summary string, f uint64) error {
				tx, err := db.BeginTx(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				exec(t, tx, b.dialect, "update chats set summary = ? where id = ?", summary, "42")
				if err := guard.Check(ctx, tx, b.dialect, "chats/42", locks.Fence{Count: f}); err != nil {
					_ = tx.Rollback()
					return err
				}
				return tx.Commit()
			}
			for _, step := range []struct {
				summary string
				fence   uint64
				stale   bool
			}{{"by B", 8, false}, {"by B, again", 8, false}, {"by A", 7, true}, {"by C", 9, false}, {"by B, late", 8, true}} {
				err := save(step.summary, step.fence)
				var stale *tinystore.StaleError
				if step.stale != errors.As(err, &stale) || (!step.stale && err != nil) {
					t.Fatalf("save %q with fence %d: %v", step.summary, step.fence, err)
				}
				if step.stale && !errors.Is(err, tinystore.ErrStale) {
					t.Errorf("errors.Is(%v, ErrStale) is false", err)
				}
			}
			var summary string
			if err := db.QueryRow("select summary from chats").Scan(&summary); err != nil {
				t.Fatal(err)
			}
			if summary != "by C" || register(t, db, b.dialect, "chats/42") != fmt.Sprintf("%040d", 9) {
				t.Errorf("chats holds %q, the register %q; want C's write, fence 9", summary, register(t, db, b.dialect, "chats/42"))
			}
		})
	}
}

// sqliteTx is a SQLite file with the register table, and a transaction
// begun on it.
func sqliteTx(t *testing.T) (*sql.DB, *sql.Tx) {
	t.Helper()
	db := openSQLite(t)
	if err := guard.Ensure(context.Background(), db, guard.SQLite); err != nil {
		t.Fatal(err)
	}
	tx, err := db.BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tx.Rollback() })
	return db, tx
}

func TestBadArgumentsAreInvalidAndNameWhatIsWrong(t *testing.T) {
	ctx := context.Background()
	db, tx := sqliteTx(t)
	for _, c := range []struct {
		err   error
		about string
	}{
		{guard.Check(ctx, nil, guard.SQLite, "chats/42", locks.Fence{Count: 7}), "transaction"},
		{guard.Check(ctx, tx, guard.Dialect{}, "chats/42", locks.Fence{Count: 7}), "dialect"},
		{guard.Ensure(ctx, db, guard.Dialect{}), "dialect"},
		{guard.Ensure(ctx, nil, guard.SQLite), "nil"},
		{guard.Check(ctx, tx, guard.SQLite, "a\x00b", locks.Fence{Count: 7}), "NUL"},
		{guard.Check(ctx, tx, guard.SQLite, "\xff", locks.Fence{Count: 7}), "UTF-8"},
	} {
		var e *locks.Error
		if !errors.As(c.err, &e) || e.Code != locks.CodeInvalid || !strings.Contains(e.Message, c.about) {
			t.Errorf("got %v; want invalid naming %q", c.err, c.about)
		}
	}
	if guard.Migration(guard.Dialect{}) != "" || !strings.Contains(guard.Migration(guard.Postgres), `COLLATE "C"`) {
		t.Errorf("migrations: %q, %q", guard.Migration(guard.Dialect{}), guard.Migration(guard.Postgres))
	}
}

// A driver error that is neither a missing table nor a refusal is io, and
// still the driver's to errors.As.
func TestADriverErrorIsIOAndKeepsTheDriversError(t *testing.T) {
	_, tx := sqliteTx(t)
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	err := guard.Check(context.Background(), tx, guard.SQLite, "chats/42", locks.Fence{Count: 7})
	if !errors.Is(err, tinystore.ErrIO) || !errors.Is(err, sql.ErrTxDone) || !strings.Contains(err.Error(), "chats/42") {
		t.Errorf("a check on a finished transaction: %v; want io wrapping sql.ErrTxDone", err)
	}
}

// A missing register table is the guard's invalid, saying how to make it,
// with SQLite's own error inside.
func TestAMissingTableIsInvalidWithTheDriversErrorInside(t *testing.T) {
	db := openSQLite(t)
	tx, err := db.BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	err = guard.Check(context.Background(), tx, guard.SQLite, "chats/42", locks.Fence{Count: 7})
	var e *locks.Error
	var driver *sqlite.Error
	if !errors.As(err, &e) || e.Code != locks.CodeInvalid || !strings.Contains(e.Message, "ensure") || !errors.As(err, &driver) {
		t.Fatalf("got %v; want invalid saying to run ensure, wrapping *sqlite.Error", err)
	}
	if guard.IsSerializationFailure(err) {
		t.Errorf("a missing table taken for a serialization failure")
	}
}

// A SQLite writer whose snapshot is older than another's commit (WAL) is
// refused by SQLite as busy: io wrapping SQLite's error, and
// IsSerializationFailure tells it wrapped or not, as the core classifies.
func TestABusySnapshotIsASerializationFailureWrappedOrNot(t *testing.T) {
	ctx := context.Background()
	db, _ := sqliteTx(t)
	exec(t, db, guard.SQLite, "pragma journal_mode=wal")
	a, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = a.Rollback() }()
	if _, err := a.ExecContext(ctx, "select count(*) from tinystore_fences"); err != nil {
		t.Fatal(err)
	}
	b, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := guard.Check(ctx, b, guard.SQLite, "chats/42", locks.Fence{Count: 9}); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	err = guard.Check(ctx, a, guard.SQLite, "chats/42", locks.Fence{Count: 8})
	var driver *sqlite.Error
	if !errors.Is(err, tinystore.ErrIO) || !errors.As(err, &driver) || !guard.IsSerializationFailure(err) {
		t.Fatalf("got %v; want io wrapping SQLite's busy error, a serialization failure", err)
	}
	if !guard.IsSerializationFailure(driver) || guard.IsSerializationFailure(nil) || guard.IsSerializationFailure(errors.New("database is locked")) {
		t.Errorf("IsSerializationFailure must read the driver's code, not its text")
	}
}
