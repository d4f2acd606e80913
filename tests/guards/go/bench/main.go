// Command bench measures the guard's cost per write: the same write
// (an update of one row in its own transaction) unguarded, with one more
// statement in the transaction (the yardstick: issue 27 wants the guard to
// cost no more than one more statement; this one is a plain upsert into a
// table of the register's shape, so that it writes as many pages), and
// guarded (the update plus
// guard.Check), on a SQLite file (WAL, synchronous = normal) and, when $TINYSTORE_PG_URL is set,
// on PostgreSQL; the three take turns write by write, so that all see the
// same machine. It prints the median µs per write of each, the guarded
// one's ratio to the unguarded, and the cost of the guard and of the extra
// statement.
//
//	make bench-guards-go    # under tests/guards/with-postgres.sh
//	go run ./bench (in tests/guards/go) --writes 5000 [--sqlite-dir DIR]
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"

	"tinystore.dev/go/guard"
	"tinystore.dev/go/locks"
)

func main() {
	writes := flag.Int("writes", 5000, "writes of each kind per database")
	dir := flag.String("sqlite-dir", "", "where the SQLite file goes (default: a temporary directory)")
	flag.Parse()
	if err := run(*writes, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "guardbench:", err)
		os.Exit(1)
	}
}

func run(writes int, dir string) error {
	if dir == "" {
		tmp, err := os.MkdirTemp("", "guardbench-")
		if err != nil {
			return err
		}
		defer func() { _ = os.RemoveAll(tmp) }()
		dir = tmp
	}
	type target struct {
		name, driver, dsn string
		dialect           guard.Dialect
	}
	targets := []target{{"sqlite (file, WAL, sync normal)", "sqlite",
		"file:" + filepath.Join(dir, "bench.db") + "?_pragma=journal_mode(WAL)&_pragma=synchronous(normal)&_pragma=busy_timeout(10000)", guard.SQLite}}
	if url := os.Getenv("TINYSTORE_PG_URL"); url != "" {
		targets = append(targets, target{"postgres (pgx, loopback)", "pgx", url, guard.Postgres})
	} else {
		fmt.Fprintln(os.Stderr, "guardbench: TINYSTORE_PG_URL is unset: PostgreSQL skipped")
	}
	fmt.Printf("%-36s %7s %10s %12s %10s %6s %9s %13s\n", "database", "writes", "plain µs", "+1 stmt µs", "guarded µs", "ratio", "guard µs", "1 stmt µs")
	for _, t := range targets {
		db, err := sql.Open(t.driver, t.dsn)
		if err != nil {
			return err
		}
		took, err := measure(db, t.dialect, writes)
		_ = db.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", t.name, err)
		}
		p, e, g := median(took[plain]), median(took[extra]), median(took[guarded])
		fmt.Printf("%-36s %7d %10.1f %12.1f %10.1f %6.2f %9.1f %13.1f\n", t.name, writes, p, e, g, g/p, g-p, e-p)
	}
	return nil
}

// The kinds of write.
const (
	plain = iota
	extra
	guarded
	kinds
)

// measure times writes of each kind, taking turns, after a warm-up.
func measure(db *sql.DB, d guard.Dialect, writes int) (took [kinds][]time.Duration, err error) {
	ctx := context.Background()
	db.SetMaxOpenConns(1)
	if err := guard.Ensure(ctx, db, d); err != nil {
		return took, err
	}
	update := "update bench_chats set summary = ? where id = ?"
	upsert := "insert into bench_fences (resource, fence) values (?, ?) on conflict (resource) do update set fence = excluded.fence"
	if d == guard.Postgres {
		update = "update bench_chats set summary = $1 where id = $2"
		upsert = "insert into bench_fences (resource, fence) values ($1, $2) on conflict (resource) do update set fence = excluded.fence"
	}
	for _, s := range []string{
		"drop table if exists bench_chats",
		"drop table if exists bench_fences",
		"create table bench_fences (resource text primary key, fence text not null)",
		"create table bench_chats (id integer primary key, summary text not null)",
		"insert into bench_chats values (0, ''), (1, ''), (2, '')",
		"delete from tinystore_fences where resource = 'bench/1'",
	} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return took, err
		}
	}
	var count uint64
	write := func(kind int) (time.Duration, error) {
		count++
		start := time.Now()
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return 0, err
		}
		defer func() { _ = tx.Rollback() }()
		if _, err := tx.ExecContext(ctx, update, fmt.Sprintf("summary %d", count), kind); err != nil {
			return 0, err
		}
		switch kind {
		case extra:
			_, err = tx.ExecContext(ctx, upsert, "bench/1", fmt.Sprintf("%040d", count))
		case guarded:
			err = guard.Check(ctx, tx, d, "bench/1", locks.Fence{Count: count})
		}
		if err != nil {
			return 0, err
		}
		err = tx.Commit()
		return time.Since(start), err
	}
	warmUp := writes / 10 * kinds
	for i := range warmUp + kinds*writes {
		kind := i % kinds
		d, err := write(kind)
		if err != nil {
			return took, err
		}
		if i >= warmUp {
			took[kind] = append(took[kind], d)
		}
	}
	return took, nil
}

func median(ds []time.Duration) float64 {
	slices.Sort(ds)
	return float64(ds[len(ds)/2].Nanoseconds()) / 1000
}
