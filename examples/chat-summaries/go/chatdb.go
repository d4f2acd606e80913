package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	_ "modernc.org/sqlite"
)

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

// openDB opens chat.db (a 10 s busy timeout on every connection) and
// applies each migration once, in a `begin immediate` transaction of its own.
func openDB(ctx context.Context, path string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
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
		err = immediate(ctx, db, func(c *sql.Conn) error {
			var done int
			if err := c.QueryRowContext(ctx, "select count(*) from schema_migrations where name = ?", name).Scan(&done); err != nil || done > 0 {
				return err
			}
			if _, err := c.ExecContext(ctx, string(script)); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			_, err := c.ExecContext(ctx, "insert into schema_migrations (name) values (?)", name)
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	return db, nil
}

// immediate runs fn in a `begin immediate` transaction on one connection:
// committed when fn returns nil, else rolled back.
func immediate(ctx context.Context, db *sql.DB, fn func(*sql.Conn) error) error {
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
		res, err := db.ExecContext(ctx, "insert or ignore into chats (id, title) values (?, ?)", id, fmt.Sprintf("chat %d", id))
		if err != nil {
			return err
		}
		if added, _ := res.RowsAffected(); added == 1 {
			for m := 1; m <= 3; m++ {
				if _, err := db.ExecContext(ctx, "insert into messages (chat_id, body) values (?, ?)", id, fmt.Sprintf("message %d of chat %d", m, id)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// history gives the chat's messages, oldest first.
func history(ctx context.Context, db *sql.DB, chat int64) ([]string, error) {
	rows, err := db.QueryContext(ctx, "select body from messages where chat_id = ? order by id", chat)
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
	res, err := db.ExecContext(ctx, "update chats set summary = ?, summary_fence = ? where id = ? and summary_fence < ?",
		summary, fence, chat, fence)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// kept gives the summary and fence chat.db keeps for a chat.
func kept(ctx context.Context, db *sql.DB, chat int64) (summary, fence string, err error) {
	err = db.QueryRowContext(ctx, "select summary, summary_fence from chats where id = ?", chat).Scan(&summary, &fence)
	return summary, fence, err
}
