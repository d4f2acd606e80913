package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"

	"tinystore.dev/go/guard"
	"tinystore.dev/go/locks"
)

// dialect is the database openDB opened: SQLite (a file) or PostgreSQL (a
// postgresql:// URL).
var dialect = guard.SQLite

// q is a query written with ? placeholders in the dialect's own ($1 on
// PostgreSQL).
func q(query string) string {
	if dialect != guard.Postgres {
		return query
	}
	var out strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			out.WriteString("$" + strconv.Itoa(n))
			continue
		}
		out.WriteRune(r)
	}
	return out.String()
}

// migrations is the folder of ../migrations, found beside this source file
// when run with `go run`, or from the working directory's example folder.
func migrations() string {
	if _, file, _, ok := runtime.Caller(0); ok {
		dir := filepath.Join(filepath.Dir(file), "..", "migrations")
		if _, err := os.Stat(dir); err == nil {
			return dir
		}
	}
	return filepath.Join("examples", "chat-summaries", "migrations")
}

// openDB opens chat.db (a 10 s busy timeout on every connection), or the
// PostgreSQL database of a postgresql:// URL, and applies each migration
// once, in a transaction of its own (`begin immediate` on SQLite); then
// makes the guard's register table, tinystore_fences, if it is missing.
func openDB(ctx context.Context, path string) (*sql.DB, error) {
	driver, dsn := "sqlite", "file:"+path+"?_pragma=busy_timeout(10000)"
	if strings.HasPrefix(path, "postgresql://") || strings.HasPrefix(path, "postgres://") {
		driver, dsn, dialect = "pgx", path, guard.Postgres
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return nil, err
	}
	if _, err := db.ExecContext(ctx, "create table if not exists schema_migrations (name text primary key)"); err != nil {
		return nil, err
	}
	files, err := filepath.Glob(filepath.Join(migrations(), "*.sql"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no migrations in %s", migrations())
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".sql")
		script, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		err = immediate(ctx, db, func(c conn) error {
			var done int
			if err := c.QueryRowContext(ctx, q("select count(*) from schema_migrations where name = ?"), name).Scan(&done); err != nil || done > 0 {
				return err
			}
			if _, err := c.ExecContext(ctx, string(script)); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			_, err := c.ExecContext(ctx, q("insert into schema_migrations (name) values (?)"), name)
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	if err := immediate(ctx, db, func(c conn) error { return guard.Ensure(ctx, c, dialect) }); err != nil {
		return nil, err
	}
	return db, nil
}

// conn is a *sql.Conn or a *sql.Tx.
type conn interface {
	execer
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// immediate runs fn in a `begin immediate` transaction on one connection:
// committed when fn returns nil, else rolled back. On PostgreSQL, in a
// transaction that holds an advisory lock, so that two programs migrate
// one after the other.
func immediate(ctx context.Context, db *sql.DB, fn func(conn) error) error {
	if dialect == guard.Postgres {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer func() { _ = tx.Rollback() }()
		if _, err := tx.ExecContext(ctx, "select pg_advisory_xact_lock(20260004)"); err != nil {
			return err
		}
		if err := fn(tx); err != nil {
			return err
		}
		return tx.Commit()
	}
	c, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = c.Close() }()
	if _, err := c.ExecContext(ctx, "begin immediate"); err != nil {
		return err
	}
	if err := fn(c); err != nil {
		_, _ = c.ExecContext(context.WithoutCancel(ctx), "rollback")
		return err
	}
	_, err = c.ExecContext(ctx, "commit")
	if err != nil {
		_, _ = c.ExecContext(context.WithoutCancel(ctx), "rollback")
	}
	return err
}

// seed makes chats 1..=n, each with a few messages, where missing.
func seed(ctx context.Context, db *sql.DB, n int64) error {
	for id := int64(1); id <= n; id++ {
		res, err := db.ExecContext(ctx, q("insert into chats (id, title) values (?, ?) on conflict do nothing"), id, fmt.Sprintf("chat %d", id))
		if err != nil {
			return err
		}
		if added, _ := res.RowsAffected(); added == 1 {
			for m := 1; m <= 3; m++ {
				if _, err := db.ExecContext(ctx, q("insert into messages (chat_id, body) values (?, ?)"), id, fmt.Sprintf("message %d of chat %d", m, id)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// history gives the chat's messages, oldest first.
func history(ctx context.Context, db *sql.DB, chat int64) ([]string, error) {
	rows, err := db.QueryContext(ctx, q("select body from messages where chat_id = ? order by id"), chat)
	if err != nil {
		return nil, err
	}
	defer func() { _ = rows.Close() }()
	var bodies []string
	for rows.Next() {
		var body string
		if err := rows.Scan(&body); err != nil {
			return nil, err
		}
		bodies = append(bodies, body)
	}
	return bodies, rows.Err()
}

// execer is a *sql.DB or a *sql.Conn.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// save is the fenced update of docs/fences.md: it saves only when fence (40 digits) is
// larger than the fence kept with the summary, and gives the rows changed.
func save(ctx context.Context, db execer, chat int64, summary, fence string) (int64, error) {
	res, err := db.ExecContext(ctx, q("update chats set summary = ?, summary_fence = ? where id = ? and summary_fence < ?"),
		summary, fence, chat, fence)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// kept gives the summary and fence chat.db keeps for a chat.
func kept(ctx context.Context, db *sql.DB, chat int64) (summary, fence string, err error) {
	err = db.QueryRowContext(ctx, q("select summary, summary_fence from chats where id = ?"), chat).Scan(&summary, &fence)
	return summary, fence, err
}

// saveGuarded is the guarded save of docs/guards.md: the update and the
// guard's check for "chats/<id>" in one transaction. It gives 1 when
// saved, 0 and the guard's *tinystore.StaleError when a larger fence has
// written the chat (the update is rolled back with the refusal).
func saveGuarded(ctx context.Context, db *sql.DB, chat int64, summary string, fence locks.Fence) (int64, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, q("update chats set summary = ? where id = ?"), summary, chat); err != nil {
		return 0, err
	}
	if err := guard.Check(ctx, tx, dialect, fmt.Sprintf("chats/%d", chat), fence); err != nil {
		return 0, err
	}
	return 1, tx.Commit()
}

// recorded is the fence tinystore_fences keeps for a chat's resource.
func recorded(ctx context.Context, db *sql.DB, chat int64) (string, error) {
	var fence string
	err := db.QueryRowContext(ctx, q("select fence from tinystore_fences where resource = ?"), fmt.Sprintf("chats/%d", chat)).Scan(&fence)
	return fence, err
}
