package guard_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"tinystore.dev/go/guard"
	"tinystore.dev/go/locks"
	"tinystore.dev/go/tinystore"
)

func postgres(t *testing.T) *sql.DB {
	t.Helper()
	for _, b := range backends(t) {
		if b.dialect == guard.Postgres {
			return b.open(t)
		}
	}
	t.Skip("TINYSTORE_PG_URL is unset")
	return nil
}

// postgresWithRecorded is a PostgreSQL handle whose register holds fence 5
// for chats/42, and a notes table.
func postgresWithRecorded(t *testing.T) *sql.DB {
	db := postgres(t)
	if err := guard.Ensure(context.Background(), db, guard.Postgres); err != nil {
		t.Fatal(err)
	}
	exec(t, db, guard.Postgres, "create table notes(resource text, fence text)")
	exec(t, db, guard.Postgres, "insert into tinystore_fences values ('chats/42', ?)", fmt.Sprintf("%040d", 5))
	return db
}

func begin(t *testing.T, db *sql.DB, level sql.IsolationLevel, f uint64) *sql.Tx {
	t.Helper()
	tx, err := db.BeginTx(context.Background(), &sql.TxOptions{Isolation: level})
	if err != nil {
		t.Fatal(err)
	}
	exec(t, tx, guard.Postgres, "insert into notes values ('chats/42', ?)", fmt.Sprintf("%040d", f))
	return tx
}

// waitingOnALock returns once some backend of the database waits on a
// lock, or fails the test when none does within a minute.
func waitingOnALock(t *testing.T, db *sql.DB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for ctx.Err() == nil {
		var n int
		err := db.QueryRowContext(ctx, `select count(*) from pg_stat_activity
			where datname = current_database() and wait_event_type = 'Lock'`).Scan(&n)
		if err == nil && n > 0 {
			return
		}
	}
	t.Fatal("no transaction waits on the register row's lock")
}

// At READ COMMITTED a second writer's check waits on the register row
// until the first commits, then is decided by the rule against the
// first's fence: refused below it, accepted above it.
func TestPostgresReadCommittedSecondWriterWaitsThenDecides(t *testing.T) {
	for _, c := range []struct {
		first, second uint64
		stale         bool
		after         uint64
	}{{9, 8, true, 9}, {8, 9, false, 9}} {
		t.Run(fmt.Sprintf("%d-then-%d", c.first, c.second), func(t *testing.T) {
			ctx := context.Background()
			db := postgresWithRecorded(t)
			first := begin(t, db, sql.LevelReadCommitted, c.first)
			if err := guard.Check(ctx, first, guard.Postgres, "chats/42", locks.Fence{Count: c.first}); err != nil {
				t.Fatal(err)
			}
			second := begin(t, db, sql.LevelReadCommitted, c.second)
			decided := make(chan error, 1)
			go func() {
				decided <- guard.Check(ctx, second, guard.Postgres, "chats/42", locks.Fence{Count: c.second})
			}()
			waitingOnALock(t, db)
			select {
			case err := <-decided:
				t.Fatalf("the second check returned before the first committed: %v", err)
			default:
			}
			if err := first.Commit(); err != nil {
				t.Fatal(err)
			}
			err := <-decided
			var stale *tinystore.StaleError
			if c.stale {
				if !errors.As(err, &stale) || stale.Largest != (locks.Fence{Count: c.first}) {
					t.Fatalf("second writer: %v; want stale below %d", err, c.first)
				}
				_ = second.Rollback()
			} else if err != nil {
				t.Fatalf("second writer refused: %v", err)
			} else if err := second.Commit(); err != nil {
				t.Fatal(err)
			}
			if got := register(t, db, guard.Postgres, "chats/42"); got != fmt.Sprintf("%040d", c.after) {
				t.Errorf("register %s; want %d", got, c.after)
			}
			want := 1
			if !c.stale {
				want = 2
			}
			if n := count(t, db, "notes"); n != want {
				t.Errorf("%d notes; want %d", n, want)
			}
		})
	}
}

// At SERIALIZABLE a second writer whose snapshot predates the first's
// commit fails with SQLSTATE 40001; the caller retries the whole
// transaction, and the retry is decided by the rule.
func TestPostgresSerializableSecondWriterFailsThenItsRetryIsDecided(t *testing.T) {
	ctx := context.Background()
	db := postgresWithRecorded(t)
	first := begin(t, db, sql.LevelSerializable, 9)
	second := begin(t, db, sql.LevelSerializable, 8) // its snapshot is taken
	if err := guard.Check(ctx, first, guard.Postgres, "chats/42", locks.Fence{Count: 9}); err != nil {
		t.Fatal(err)
	}
	if err := first.Commit(); err != nil {
		t.Fatal(err)
	}
	err := guard.Check(ctx, second, guard.Postgres, "chats/42", locks.Fence{Count: 8})
	if !guard.IsSerializationFailure(err) || !errors.Is(err, tinystore.ErrIO) {
		t.Fatalf("second writer: %v; want a serialization failure (io, SQLSTATE 40001)", err)
	}
	_ = second.Rollback()

	// The caller's retry loop: the whole transaction again.
	attempts := 0
	save := func(f uint64) error {
		for {
			attempts++
			tx := begin(t, db, sql.LevelSerializable, f)
			err := guard.Check(ctx, tx, guard.Postgres, "chats/42", locks.Fence{Count: f})
			if err == nil {
				err = tx.Commit()
			} else {
				_ = tx.Rollback()
			}
			if !guard.IsSerializationFailure(err) {
				return err
			}
		}
	}
	err = save(8)
	var stale *tinystore.StaleError
	if !errors.As(err, &stale) || stale.Largest != (locks.Fence{Count: 9}) || attempts != 1 {
		t.Fatalf("the retry: %v after %d attempts; want stale below 9", err, attempts)
	}
	if err := save(10); err != nil {
		t.Fatalf("a larger fence's retry: %v", err)
	}
	if got := register(t, db, guard.Postgres, "chats/42"); got != fmt.Sprintf("%040d", 10) {
		t.Errorf("register %s; want 10", got)
	}
	if n := count(t, db, "notes"); n != 2 {
		t.Errorf("%d notes; want the first's and the last retry's", n)
	}
}

// A connection the server ends in the middle of a transaction (another
// session's pg_terminate_backend) is unavailable, wrapping pgx's error;
// nothing is recorded.
func TestPostgresConnectionEndedIsUnavailable(t *testing.T) {
	ctx := context.Background()
	db := postgresWithRecorded(t)
	tx := begin(t, db, sql.LevelReadCommitted, 7)
	defer func() { _ = tx.Rollback() }()
	var pid int
	if err := tx.QueryRowContext(ctx, "select pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "select pg_terminate_backend($1, 10000)", pid); err != nil {
		t.Fatal(err)
	}
	err := guard.Check(ctx, tx, guard.Postgres, "chats/42", locks.Fence{Count: 7})
	var pg *pgconn.PgError
	if !errors.Is(err, tinystore.ErrUnavailable) || !errors.As(err, &pg) || guard.IsSerializationFailure(err) {
		t.Fatalf("got %v; want unavailable wrapping pgx's error", err)
	}
	if got := register(t, db, guard.Postgres, "chats/42"); got != fmt.Sprintf("%040d", 5) {
		t.Errorf("register %s; want 5 as it was", got)
	}
}
