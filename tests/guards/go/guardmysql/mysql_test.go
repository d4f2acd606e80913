package guardmysql_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"tinystore.dev/go/guard"
	"tinystore.dev/go/locks"
	"tinystore.dev/go/tinystore"
)

// recorded5 is a database whose register holds fence 5 for chats/42, and
// a notes table.
func recorded5(t *testing.T, params string) *database {
	db := ensured(t, params)
	exec(t, db, "insert into tinystore_fences values ('chats/42', ?)", fmt.Sprintf("%040d", 5))
	return db
}

// begin is a transaction at level with its own row in notes.
func begin(t *testing.T, db *database, level sql.IsolationLevel, f uint64) *sql.Tx {
	t.Helper()
	tx, err := db.BeginTx(context.Background(), &sql.TxOptions{Isolation: level})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tx.Rollback() }) // before the database is dropped
	exec(t, tx, "insert into notes values ('chats/42', ?)", fmt.Sprintf("%040d", f))
	return tx
}

// waitingOnALock returns once a connection to db is in the middle of the
// guard's upsert (which, while another transaction holds the register
// row, waits on its lock), or fails the test when none is within a
// minute or a check that should wait returned (on decided) instead.
// (MariaDB's information_schema.innodb_trx would not do: polled this
// often, it did not show the wait.)
func waitingOnALock(t *testing.T, db *database, decided chan error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for ctx.Err() == nil {
		select {
		case err := <-decided:
			t.Fatalf("a check that should wait on a row lock returned: %v", err)
		default:
		}
		var n int
		err := db.QueryRowContext(ctx, `select count(*) from information_schema.processlist
			where db = ? and info like 'INSERT INTO tinystore_fences%'`, db.name).Scan(&n)
		if err == nil && n > 0 {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("no transaction waits on the register row's lock")
}

// At READ COMMITTED and at REPEATABLE READ (InnoDB's default), on
// connections counting changed or found rows, a second writer's check
// waits on the register row until the first commits, then is decided by
// the rule against the first's fence: refused below it, accepted above.
func TestMySQLSecondWriterWaitsForTheFirstsCommitThenDecides(t *testing.T) {
	for _, rows := range foundRows {
		for _, level := range []sql.IsolationLevel{sql.LevelReadCommitted, sql.LevelRepeatableRead} {
			for _, c := range []struct {
				first, second uint64
				stale         bool
				after         uint64
			}{{9, 8, true, 9}, {8, 9, false, 9}, {9, 9, false, 9}} {
				name := fmt.Sprintf("%s/%s/%d-then-%d", rows.name, strings.ReplaceAll(level.String(), " ", "-"), c.first, c.second)
				t.Run(name, func(t *testing.T) {
					ctx := context.Background()
					db := recorded5(t, rows.params)
					first := begin(t, db, level, c.first)
					if err := guard.Check(ctx, first, guard.MySQL, "chats/42", locks.Fence{Count: c.first}); err != nil {
						t.Fatal(err)
					}
					second := begin(t, db, level, c.second)
					decided := make(chan error, 1)
					go func() {
						decided <- guard.Check(ctx, second, guard.MySQL, "chats/42", locks.Fence{Count: c.second})
					}()
					waitingOnALock(t, db, decided)
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
					if got := register(t, db, "chats/42"); got != fmt.Sprintf("%040d", c.after) {
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
	}
}

// A transaction whose REPEATABLE READ snapshot was taken before another
// committed a larger fence is refused as stale with that fence as the
// largest: the guard reads the row it compared with (a locking read), not
// its snapshot.
func TestMySQLAnOldSnapshotIsRefusedWithTheCommittedLargest(t *testing.T) {
	for _, rows := range foundRows {
		t.Run(rows.name, func(t *testing.T) {
			ctx := context.Background()
			db := recorded5(t, rows.params)
			old := begin(t, db, sql.LevelRepeatableRead, 7)
			defer func() { _ = old.Rollback() }()
			var seen string
			if err := old.QueryRowContext(ctx, "select fence from tinystore_fences where resource = 'chats/42'").Scan(&seen); err != nil {
				t.Fatal(err)
			}
			later := begin(t, db, sql.LevelRepeatableRead, 9)
			if err := guard.Check(ctx, later, guard.MySQL, "chats/42", locks.Fence{Count: 9}); err != nil {
				t.Fatal(err)
			}
			if err := later.Commit(); err != nil {
				t.Fatal(err)
			}
			err := guard.Check(ctx, old, guard.MySQL, "chats/42", locks.Fence{Count: 7})
			var stale *tinystore.StaleError
			if !errors.As(err, &stale) || stale.Largest != (locks.Fence{Count: 9}) || stale.Fence != (locks.Fence{Count: 7}) {
				t.Fatalf("the old snapshot's check: %v (its snapshot saw %s); want stale below 9", err, seen)
			}
			if got := register(t, db, "chats/42"); got != fmt.Sprintf("%040d", 9) {
				t.Errorf("register %s; want 9", got)
			}
		})
	}
}

// A missing register table is invalid, saying to run ensure, with the
// driver's error 1146 inside; not a serialization failure.
func TestMySQLAMissingTableIsInvalidWithTheDriversErrorInside(t *testing.T) {
	db := open(t, "")
	tx, err := db.BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	err = guard.Check(context.Background(), tx, guard.MySQL, "chats/42", locks.Fence{Count: 7})
	var e *locks.Error
	var driver *mysql.MySQLError
	if !errors.As(err, &e) || e.Code != locks.CodeInvalid || !strings.Contains(e.Message, "ensure") ||
		!errors.As(err, &driver) || driver.Number != 1146 {
		t.Fatalf("got %v; want invalid saying to run ensure, wrapping the driver's error 1146", err)
	}
	if guard.IsSerializationFailure(err) {
		t.Errorf("a missing table taken for a serialization failure")
	}
}

// A user that may only read tinystore_fences is refused by the server
// (error 1142): unauthorized, wrapping the driver's error; nothing is
// recorded.
func TestMySQLAReaderOnlyUserIsUnauthorized(t *testing.T) {
	ctx := context.Background()
	db := recorded5(t, "")
	user := "tinystore_go_reader_" + db.name[len("go_"):]
	db.admin(t, "create user '"+user+"'@'127.0.0.1'",
		"grant select on "+db.name+".tinystore_fences to '"+user+"'@'127.0.0.1'")
	t.Cleanup(func() { db.admin(t, "drop user if exists '"+user+"'@'127.0.0.1'") })
	reader, err := sql.Open("mysql", dsn(db.server, user, db.name, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = reader.Close() }()
	tx, err := reader.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	err = guard.Check(ctx, tx, guard.MySQL, "chats/42", locks.Fence{Count: 7})
	var driver *mysql.MySQLError
	if !errors.Is(err, tinystore.ErrUnauthorized) || !errors.As(err, &driver) || driver.Number != 1142 ||
		guard.IsSerializationFailure(err) {
		t.Fatalf("got %v; want unauthorized wrapping the driver's error 1142", err)
	}
	if got := register(t, db, "chats/42"); got != fmt.Sprintf("%040d", 5) {
		t.Errorf("register %s; want 5 as it was", got)
	}
}

// A connection another connection ended with KILL in the middle of a
// transaction is unavailable, wrapping the driver's error (its
// mysql.ErrInvalidConn, or database/sql's driver.ErrBadConn); nothing is
// recorded.
func TestMySQLAKilledConnectionIsUnavailable(t *testing.T) {
	ctx := context.Background()
	db := recorded5(t, "")
	tx := begin(t, db, sql.LevelRepeatableRead, 7)
	defer func() { _ = tx.Rollback() }()
	var id int64
	if err := tx.QueryRowContext(ctx, "select connection_id()").Scan(&id); err != nil {
		t.Fatal(err)
	}
	exec(t, db, fmt.Sprintf("kill %d", id))
	err := guard.Check(ctx, tx, guard.MySQL, "chats/42", locks.Fence{Count: 7})
	var driverErr *mysql.MySQLError
	wrapsDriver := errors.Is(err, mysql.ErrInvalidConn) || errors.Is(err, driver.ErrBadConn) || errors.As(err, &driverErr)
	if !errors.Is(err, tinystore.ErrUnavailable) || !wrapsDriver || guard.IsSerializationFailure(err) {
		t.Fatalf("got %v; want unavailable wrapping the driver's error", err)
	}
	if got := register(t, db, "chats/42"); got != fmt.Sprintf("%040d", 5) {
		t.Errorf("register %s; want 5 as it was", got)
	}
}

// Two transactions that each hold one resource's row and then check the
// other's deadlock: InnoDB rolls one back with error 1213, which
// IsSerializationFailure tells (wrapped by the guard as io, or not); the
// other goes on and is accepted.
func TestMySQLADeadlockIsASerializationFailure(t *testing.T) {
	ctx := context.Background()
	db := ensured(t, "")
	a := begin(t, db, sql.LevelRepeatableRead, 7)
	defer func() { _ = a.Rollback() }()
	b := begin(t, db, sql.LevelRepeatableRead, 7)
	defer func() { _ = b.Rollback() }()
	for _, first := range []struct {
		tx       *sql.Tx
		resource string
	}{{a, "chats/1"}, {b, "chats/2"}} {
		if err := guard.Check(ctx, first.tx, guard.MySQL, first.resource, locks.Fence{Count: 7}); err != nil {
			t.Fatal(err)
		}
	}
	aDone := make(chan error, 1)
	go func() { aDone <- guard.Check(ctx, a, guard.MySQL, "chats/2", locks.Fence{Count: 7}) }()
	waitingOnALock(t, db, aDone)
	bErr := guard.Check(ctx, b, guard.MySQL, "chats/1", locks.Fence{Count: 7})
	victim, survivor := bErr, error(nil)
	if bErr == nil {
		victim = <-aDone
	} else {
		survivor = <-aDone
	}
	var driverErr *mysql.MySQLError
	if !guard.IsSerializationFailure(victim) || !errors.Is(victim, tinystore.ErrIO) ||
		!errors.As(victim, &driverErr) || driverErr.Number != 1213 {
		t.Fatalf("the deadlock's victim: %v; want io wrapping the driver's error 1213, a serialization failure", victim)
	}
	if !guard.IsSerializationFailure(driverErr) {
		t.Errorf("IsSerializationFailure does not tell the driver's own error 1213")
	}
	if survivor != nil {
		t.Errorf("the other transaction: %v; want accepted", survivor)
	}
}

// Under MariaDB's innodb_snapshot_isolation=ON, a REPEATABLE READ
// transaction whose snapshot predates another's commit of the register
// row fails with error 1020: a serialization failure (io, wrapping the
// driver's error), after which the retry of the whole transaction is
// decided by the rule.
func TestMySQLSnapshotIsolationIsASerializationFailureThenTheRetryIsDecided(t *testing.T) {
	ctx := context.Background()
	db := recorded5(t, "")
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	if _, err := conn.ExecContext(ctx, "set session innodb_snapshot_isolation = on"); err != nil {
		t.Skipf("this server has no innodb_snapshot_isolation (MariaDB 10.6.18 and later): %v", err)
	}
	save := func(f uint64, between func()) error {
		tx, err := conn.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead})
		if err != nil {
			t.Fatal(err)
		}
		exec(t, tx, "insert into notes values ('chats/42', ?)", fmt.Sprintf("%040d", f))
		var n int
		if err := tx.QueryRowContext(ctx, "select count(*) from tinystore_fences").Scan(&n); err != nil {
			t.Fatal(err) // the snapshot is taken
		}
		if between != nil {
			between()
		}
		err = guard.Check(ctx, tx, guard.MySQL, "chats/42", locks.Fence{Count: f})
		if err == nil {
			return tx.Commit()
		}
		_ = tx.Rollback()
		return err
	}
	err = save(7, func() {
		later := begin(t, db, sql.LevelRepeatableRead, 9)
		if err := guard.Check(ctx, later, guard.MySQL, "chats/42", locks.Fence{Count: 9}); err != nil {
			t.Fatal(err)
		}
		if err := later.Commit(); err != nil {
			t.Fatal(err)
		}
	})
	var driverErr *mysql.MySQLError
	if !guard.IsSerializationFailure(err) || !errors.Is(err, tinystore.ErrIO) || !errors.As(err, &driverErr) || driverErr.Number != 1020 {
		t.Fatalf("the old snapshot's check: %v; want io wrapping the driver's error 1020, a serialization failure", err)
	}
	err = save(7, nil)
	var stale *tinystore.StaleError
	if !errors.As(err, &stale) || stale.Largest != (locks.Fence{Count: 9}) {
		t.Fatalf("the retry: %v; want stale below 9", err)
	}
	if err := save(10, nil); err != nil {
		t.Fatalf("a larger fence's retry: %v", err)
	}
	if got := register(t, db, "chats/42"); got != fmt.Sprintf("%040d", 10) {
		t.Errorf("register %s; want 10", got)
	}
	if n := count(t, db, "notes"); n != 2 {
		t.Errorf("%d notes; want 9's and 10's", n)
	}
}
