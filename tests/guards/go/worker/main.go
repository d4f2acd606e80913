// Command worker is Go's writer in the guard's contention test
// (tests/guards/README.md, tests/guards/contention.py): it takes turns
// holding key "1" of lock group "guarded" through a tinystore server and
// writes resource "contention/1" through the guard, logging each accepted
// write in the same transaction.
//
//	worker --store unix:DIR/tinystore.sock --db DB --name NAME --seconds S --ttl-ms T
//
// DB is a SQLite file, a postgresql:// URL or a mysql://USER@HOST:PORT/DB
// URL (MySQL or MariaDB, go-sql-driver) whose tables exist already, each
// write one transaction at the server's default isolation (PostgreSQL:
// READ COMMITTED, MySQL: REPEATABLE READ), or s3://BUCKET/KEY: then each write is a guarded put of KEY (s3guard) on
// the server at $TINYSTORE_S3_URL, its body {"fence": ..., "writer": NAME},
// or a redis:// URL: then each write is a guarded script (redisguard) on
// key "contention/1" that logs "<fence as 40 digits> NAME" to
// "{contention/1}:log" and sets the key to the fence's digits.
// `make guard-worker-go` builds it as $(CARGO_TARGET_DIR)/guard-worker-go; it
// lives in its own module, tests/guards/go, so that the drivers stay out
// of the module users get.
package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	_ "github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"

	"tinystore.dev/go/guard"
	"tinystore.dev/go/locks"
	"tinystore.dev/go/tinystore"
)

const resource = "contention/1"

func main() {
	address := flag.String("store", "", "the server's address, unix:DIR/tinystore.sock")
	dsn := flag.String("db", "", "a SQLite file, a postgresql:// or mysql:// URL, s3://BUCKET/KEY or a redis:// URL")
	name := flag.String("name", "", "this writer's name, logged with each accepted write")
	seconds := flag.Float64("seconds", 10, "how long to take turns")
	ttlMS := flag.Int("ttl-ms", 300, "the lease's TTL in milliseconds")
	flag.Parse()
	if *address == "" || *dsn == "" || *name == "" {
		fmt.Fprintln(os.Stderr, "usage: worker --store ADDRESS --db DB --name NAME --seconds S --ttl-ms T")
		os.Exit(2)
	}
	if err := run(*address, *dsn, *name, time.Duration(*seconds*float64(time.Second)), time.Duration(*ttlMS)*time.Millisecond); err != nil {
		fmt.Fprintln(os.Stderr, "guard-worker-go:", err)
		os.Exit(1)
	}
}

// worker is one writer: its database, its dialect and its name.
type worker struct {
	db      *sql.DB
	dialect guard.Dialect
	name    string
	insert  string
}

// A writer writes once under a lease with its fence, and prints the
// outcome.
type writer interface {
	write(ctx context.Context, fence locks.Fence)
}

func run(address, dsn, name string, seconds, ttl time.Duration) error {
	ctx := context.Background()
	var w writer
	switch {
	case strings.HasPrefix(dsn, "s3://"):
		o, err := newObjectWriter(dsn, name)
		if err != nil {
			return err
		}
		w = o
	case strings.HasPrefix(dsn, "redis://"):
		r, err := newRedisWriter(dsn, name)
		if err != nil {
			return err
		}
		defer func() { _ = r.client.Close() }()
		w = r
	default:
		s, err := openSQL(dsn, name)
		if err != nil {
			return err
		}
		defer func() { _ = s.db.Close() }()
		w = s
	}
	store, err := tinystore.Connect(address)
	if err != nil {
		return err
	}
	defer func() { _ = store.Close() }()
	group := store.Locks("guarded", locks.TTL(ttl), locks.NoRenew())
	for end := time.Now().Add(seconds); time.Now().Before(end); {
		lease, err := group.Acquire(ctx, "1")
		if err != nil {
			report(err)
			continue
		}
		fmt.Printf("HELD %s\n", lease.Fence)
		time.Sleep(30 * time.Millisecond) // the window in which the driver may stop this process
		w.write(ctx, lease.Fence)
		if err := lease.Release(ctx); err != nil && !errors.Is(err, locks.ErrLeaseLost) {
			report(err)
		}
	}
	fmt.Println("DONE")
	return nil
}

// openSQL opens the SQL writer's database.
func openSQL(dsn, name string) (*worker, error) {
	w := &worker{name: name}
	var err error
	switch {
	case strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://"):
		w.dialect, w.insert = guard.Postgres, "insert into guard_log (fence, writer) values ($1, $2)"
		w.db, err = sql.Open("pgx", dsn)
	case strings.HasPrefix(dsn, "mysql://"):
		w.dialect, w.insert = guard.MySQL, "insert into guard_log (fence, writer) values (?, ?)"
		var name string
		if name, err = mysqlDSN(dsn); err == nil {
			w.db, err = sql.Open("mysql", name)
		}
	default:
		// BEGIN IMMEDIATE and a 10 s busy timeout, as the protocol says.
		w.dialect, w.insert = guard.SQLite, "insert into guard_log (fence, writer) values (?, ?)"
		w.db, err = sql.Open("sqlite", "file:"+dsn+"?_pragma=busy_timeout(10000)&_txlock=immediate")
	}
	if err != nil {
		return nil, err
	}
	return w, nil
}

// mysqlDSN is go-sql-driver's name for mysql://USER[:PASSWORD]@HOST:PORT/DB.
func mysqlDSN(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil || u.Host == "" {
		return "", fmt.Errorf("%q is not a mysql://USER@HOST:PORT/DB URL", raw)
	}
	account := u.User.Username()
	if password, ok := u.User.Password(); ok {
		account += ":" + password
	}
	return account + "@tcp(" + u.Host + ")/" + strings.TrimPrefix(u.Path, "/"), nil
}

// write logs the fence and checks it through the guard in one
// transaction: ACCEPTED when committed, REFUSED when stale.
func (w *worker) write(ctx context.Context, fence locks.Fence) {
	var options *sql.TxOptions // SQLite: BEGIN IMMEDIATE, from the DSN
	if w.dialect == guard.Postgres {
		options = &sql.TxOptions{Isolation: sql.LevelReadCommitted}
	}
	tx, err := w.db.BeginTx(ctx, options)
	if err != nil {
		report(err)
		return
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, w.insert, fmt.Sprintf("%040s", fence), w.name); err != nil {
		report(err)
		return
	}
	err = guard.Check(ctx, tx, w.dialect, resource, fence)
	var stale *tinystore.StaleError
	switch {
	case errors.As(err, &stale):
		_ = tx.Rollback()
		fmt.Printf("REFUSED %s %s\n", fence, stale.Largest)
	case err != nil:
		report(err)
	default:
		if err := tx.Commit(); err != nil {
			report(err)
			return
		}
		fmt.Printf("ACCEPTED %s\n", fence)
	}
}

// report prints ERROR <code> <message> on one line.
func report(err error) {
	code, message := "io", err.Error()
	var e *locks.Error
	if errors.As(err, &e) {
		code, message = string(e.Code), e.Message
	}
	fmt.Printf("ERROR %s %s\n", code, strings.ReplaceAll(message, "\n", " "))
}
