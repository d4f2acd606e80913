// Command bench measures the guard's cost per write: the same write
// (an update of one row in its own transaction) unguarded and guarded (the
// update plus guard.Check in the transaction), on a SQLite file (WAL) and,
// when $TINYSTORE_PG_URL is set, on PostgreSQL; the two alternate write by
// write, so that both see the same machine. It prints the median µs per
// write of each and their ratio.
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
	targets := []target{{"sqlite (file, WAL)", "sqlite",
		"file:" + filepath.Join(dir, "bench.db") + "?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)", guard.SQLite}}
	if url := os.Getenv("TINYSTORE_PG_URL"); url != "" {
		targets = append(targets, target{"postgres (loopback, READ COMMITTED)", "pgx", url, guard.Postgres})
	} else {
		fmt.Fprintln(os.Stderr, "guardbench: TINYSTORE_PG_URL is unset: PostgreSQL skipped")
	}
	fmt.Printf("%-36s %8s %14s %12s %8s %10s\n", "database", "writes", "unguarded µs", "guarded µs", "ratio", "cost µs")
	for _, t := range targets {
		db, err := sql.Open(t.driver, t.dsn)
		if err != nil {
			return err
		}
		plain, guarded, err := measure(db, t.dialect, writes)
		_ = db.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", t.name, err)
		}
		p, g := median(plain), median(guarded)
		fmt.Printf("%-36s %8d %14.1f %12.1f %8.2f %10.1f\n", t.name, writes, p, g, g/p, g-p)
	}
	return nil
}

// measure times writes of each kind, alternating, after a warm-up.
func measure(db *sql.DB, d guard.Dialect, writes int) (plain, guarded []time.Duration, err error) {
	ctx := context.Background()
	db.SetMaxOpenConns(1)
	if err := guard.Ensure(ctx, db, d); err != nil {
		return nil, nil, err
	}
	update := "update bench_chats set summary = ? where id = ?"
	if d == guard.Postgres {
		update = "update bench_chats set summary = $1 where id = $2"
	}
	for _, s := range []string{
		"drop table if exists bench_chats",
		"create table bench_chats (id integer primary key, summary text not null)",
		"insert into bench_chats values (1, ''), (2, '')",
		"delete from tinystore_fences where resource = 'bench/1'",
	} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return nil, nil, err
		}
	}
	var count uint64
	write := func(guarded bool) (time.Duration, error) {
		count++
		start := time.Now()
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return 0, err
		}
		id := 1
		if guarded {
			id = 2
		}
		if _, err := tx.ExecContext(ctx, update, fmt.Sprintf("summary %d", count), id); err != nil {
			_ = tx.Rollback()
			return 0, err
		}
		if guarded {
			if err := guard.Check(ctx, tx, d, "bench/1", locks.Fence{Count: count}); err != nil {
				_ = tx.Rollback()
				return 0, err
			}
		}
		err = tx.Commit()
		return time.Since(start), err
	}
	for i := range writes/10 + 2*writes {
		kind := i%2 == 1
		took, err := write(kind)
		if err != nil {
			return nil, nil, err
		}
		if i < writes/10 {
			continue // warm-up
		}
		if kind {
			guarded = append(guarded, took)
		} else {
			plain = append(plain, took)
		}
	}
	return plain, guarded, nil
}

func median(ds []time.Duration) float64 {
	slices.Sort(ds)
	return float64(ds[len(ds)/2].Nanoseconds()) / 1000
}
