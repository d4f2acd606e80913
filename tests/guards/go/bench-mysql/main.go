// Command bench-mysql measures the guard's cost per write on MySQL or
// MariaDB at $TINYSTORE_MYSQL_URL (mysql://USER@HOST:PORT/DB, as
// tests/guards/with-mariadb.sh gives it), on database/sql with
// go-sql-driver/mysql, one connection: a write transaction alone (one
// UPDATE), the same with one more statement (an upsert into a side
// table), and the same with guard.Check(..., guard.MySQL, ...), each
// fence larger than the last (the usual case: the guard's one upsert).
// The three take turns sample by sample (a sample is --writes writes of
// one kind), so that a noisy machine weighs on each alike, after one
// sample of each as warm-up. It prints the median µs per write of each
// and the ratio to the write alone, as core/benches/guard_mysql.rs and
// bindings-python/bench/guard_mysql.py do.
//
// It runs twice: with the driver's default DSN, where a statement with
// arguments is a server-side prepare, execute and close (three round
// trips), and with interpolateParams=true, where the driver writes the
// arguments into the text (one round trip).
//
//	make bench-guards-mysql-go
//	go run ./bench-mysql (in tests/guards/go, under with-mariadb.sh) --samples 7 --writes 1000
package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"runtime/debug"
	"slices"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"tinystore.dev/go/guard"
	"tinystore.dev/go/locks"
)

const side = "insert into side (k, v) values ('r', ?) on duplicate key update v = if(v <= ?, ?, v)"

// The kinds of write.
const (
	plain = iota
	extra
	guarded
	kinds
)

var names = [kinds]string{"the write alone", "the write and one more upsert", "the write and the guard"}

func main() {
	samples := flag.Int("samples", 7, "samples of each kind")
	writes := flag.Int("writes", 1000, "writes per sample")
	flag.Parse()
	if err := run(*samples, *writes); err != nil {
		fmt.Fprintln(os.Stderr, "bench-mysql:", err)
		os.Exit(1)
	}
}

func run(samples, writes int) error {
	raw := os.Getenv("TINYSTORE_MYSQL_URL")
	if raw == "" {
		return errors.New("TINYSTORE_MYSQL_URL is unset: run under tests/guards/with-mariadb.sh (make bench-guards-mysql-go)")
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "mysql" {
		return fmt.Errorf("TINYSTORE_MYSQL_URL %q is not a mysql:// URL", raw)
	}
	base := u.User.String() + "@tcp(" + u.Host + ")" + u.Path
	for _, params := range []string{"", "?interpolateParams=true"} {
		version, m, err := measure(base+params, samples, writes)
		if err != nil {
			return err
		}
		dsn := "the driver's default DSN (prepare, execute, close per statement with arguments)"
		if params != "" {
			dsn = "interpolateParams=true"
		}
		fmt.Printf("\ngo-sql-driver/mysql %s on %s, %s, one connection, %d writes per sample, median of %d\n",
			module("github.com/go-sql-driver/mysql"), version, dsn, writes, samples)
		fmt.Println("| each write | µs per write | over the write alone |")
		fmt.Println("| --- | ---: | ---: |")
		for kind, us := range m {
			fmt.Printf("| %s | %.1f | %.2fx |\n", names[kind], us, us/m[plain])
		}
	}
	return nil
}

// measure gives the server's version and the median µs per write of each
// kind on a fresh set of tables through dsn.
func measure(dsn string, samples, writes int) (version string, medians [kinds]float64, err error) {
	ctx := context.Background()
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		return "", medians, err
	}
	defer func() { _ = db.Close() }()
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	for _, s := range []string{
		"drop table if exists items, side, tinystore_fences",
		"create table items (id integer primary key, v integer not null) engine=InnoDB",
		"insert into items values (1, 0)",
		"create table side (k varchar(64) primary key, v varchar(64) not null) engine=InnoDB",
	} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return "", medians, err
		}
	}
	if err := guard.Ensure(ctx, db, guard.MySQL); err != nil {
		return "", medians, err
	}
	if err := db.QueryRowContext(ctx, "select version()").Scan(&version); err != nil {
		return "", medians, err
	}
	var fence uint64
	write := func(kind int) error {
		fence++
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer func() { _ = tx.Rollback() }()
		if _, err := tx.ExecContext(ctx, "update items set v = v + 1 where id = 1"); err != nil {
			return err
		}
		switch kind {
		case extra:
			text := fmt.Sprint(fence)
			_, err = tx.ExecContext(ctx, side, text, text, text)
		case guarded:
			err = guard.Check(ctx, tx, guard.MySQL, "items/1", locks.Fence{Count: fence})
		}
		if err != nil {
			return err
		}
		return tx.Commit()
	}
	var took [kinds][]float64
	for round := 0; round <= samples; round++ {
		for kind := range kinds {
			start := time.Now()
			for range writes {
				if err := write(kind); err != nil {
					return "", medians, fmt.Errorf("%s: %w", names[kind], err)
				}
			}
			if round > 0 { // the first round warms up, unmeasured
				took[kind] = append(took[kind], float64(time.Since(start).Nanoseconds())/1e3/float64(writes))
			}
		}
	}
	for kind := range kinds {
		medians[kind] = median(took[kind])
	}
	return version, medians, nil
}

func median(v []float64) float64 {
	slices.Sort(v)
	return v[len(v)/2]
}

// module is the version of the module path the binary was built with.
func module(path string) string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, m := range info.Deps {
			if m.Path == path {
				return m.Version
			}
		}
	}
	return "(unknown)"
}
