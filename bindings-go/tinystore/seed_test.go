package tinystore_test

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"testing"

	_ "modernc.org/sqlite"

	"tinystore.dev/go/locks"
)

// summarize is the seed's Go snippet (shared/seed/fences.md, "Checking a
// fence in SQL"), copied as written; the program around it supplies ctx,
// summaries, chatID, model, history and db.
func summarize(ctx context.Context, summaries *locks.Locks, chatID int64, model summarizer, history func(context.Context, int64) []string, db *chatDB) error {
	var err error
	err = summaries.Hold(ctx, chatID, func(ctx context.Context, lease *locks.Lease) error {
		summary, err := model.Summarize(ctx, history(ctx, chatID))
		if err != nil {
			return err
		}
		fence := fmt.Sprintf("%040s", lease.Fence)
		_, err = db.Exec(ctx, `update chats set summary = ?, summary_fence = ? where id = ? and summary_fence < ?`,
			summary, fence, chatID, fence)
		return err
	})
	return err
}

// summarizer is the application's model: it "summarizes" a history by
// naming its worker, after pause (when set) returns.
type summarizer struct {
	worker string
	pause  func()
}

func (m summarizer) Summarize(ctx context.Context, history []string) (string, error) {
	if m.pause != nil {
		m.pause()
	}
	return fmt.Sprintf("%d messages, summarized by %s", len(history), m.worker), nil
}

// A write is one update the database ran: the fence it carried and the
// rows it changed.
type write struct {
	fence   string
	changed int64
}

// chatDB is the application's SQLite database of chats, with the seed's
// migration 0004 (summary_fence text).
type chatDB struct {
	sql    *sql.DB
	mu     sync.Mutex
	writes []write
}

func openChatDB(t testing.TB, path string) *chatDB {
	t.Helper()
	db, err := openSQL(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return &chatDB{sql: db}
}

func openSQL(path string) (*sql.DB, error) {
	return sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)")
}

// migrate makes the tables, with chat 1 and three messages.
func (d *chatDB) migrate(t testing.TB) {
	t.Helper()
	for _, stmt := range []string{
		`create table chats (id integer primary key, summary text not null default '')`,
		`alter table chats add column summary_fence text not null default ''`, // migrations/0004_summary_fence.sql
		`create table messages (chat_id integer not null, body text not null)`,
		`insert into chats (id) values (1)`,
		`insert into messages values (1, 'hello'), (1, 'how are you'), (1, 'fine')`,
	} {
		if _, err := d.sql.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
}

// Exec runs an update and keeps what it changed. It does not stop the
// statement when ctx is cancelled: the write of a holder that paused past
// its lease reaches the database, as when a process stalls between its
// last check and its write, and only the fence may refuse it.
func (d *chatDB) Exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	result, err := d.sql.ExecContext(context.WithoutCancel(ctx), query, args...)
	if err != nil {
		return nil, err
	}
	changed, err := result.RowsAffected()
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	d.writes = append(d.writes, write{fence: fmt.Sprint(args[1]), changed: changed})
	d.mu.Unlock()
	return result, nil
}

// history is the chat's messages.
func (d *chatDB) history(ctx context.Context, chatID int64) []string {
	rows, err := d.sql.QueryContext(context.WithoutCancel(ctx), `select body from messages where chat_id = ?`, chatID)
	if err != nil {
		return nil
	}
	defer rows.Close()
	var bodies []string
	for rows.Next() {
		var body string
		if rows.Scan(&body) == nil {
			bodies = append(bodies, body)
		}
	}
	return bodies
}

// summary is chat 1's summary and fence as stored.
func (d *chatDB) summary(t testing.TB) (summary, fence string) {
	t.Helper()
	if err := d.sql.QueryRow(`select summary, summary_fence from chats where id = 1`).Scan(&summary, &fence); err != nil {
		t.Fatal(err)
	}
	return summary, fence
}
