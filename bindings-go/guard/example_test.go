package guard_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"tinystore.dev/go/guard"
	"tinystore.dev/go/locks"
	"tinystore.dev/go/tinystore"
)

// A holder with fence 8 saves; a late one with fence 7 is refused, and its
// update goes with the refusal.
func ExampleCheck() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "guard-example-")
	defer func() { _ = os.RemoveAll(dir) }()
	db, _ := sql.Open("sqlite", "file:"+filepath.Join(dir, "chat.db"))
	defer func() { _ = db.Close() }()
	_, _ = db.ExecContext(ctx, "create table chats (id integer primary key, summary text)")
	_, _ = db.ExecContext(ctx, "insert into chats values (42, '')")
	if err := guard.Ensure(ctx, db, guard.SQLite); err != nil {
		fmt.Println(err)
		return
	}
	save := func(summary string, fence locks.Fence) error {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer func() { _ = tx.Rollback() }()
		if _, err := tx.ExecContext(ctx, "update chats set summary = ? where id = ?", summary, 42); err != nil {
			return err
		}
		if err := guard.Check(ctx, tx, guard.SQLite, "chats/42", fence); err != nil {
			return err
		}
		return tx.Commit()
	}
	fmt.Println(save("by B", locks.Fence{Count: 8}))
	err := save("by A", locks.Fence{Count: 7})
	var stale *tinystore.StaleError
	if errors.As(err, &stale) {
		fmt.Printf("refused: fence %s, largest %s, for %s\n", stale.Fence, stale.Largest, stale.Resource)
	}
	var summary string
	_ = db.QueryRowContext(ctx, "select summary from chats where id = 42").Scan(&summary)
	fmt.Println(summary)
	// Output:
	// <nil>
	// refused: fence 7, largest 8, for chats/42
	// by B
}
