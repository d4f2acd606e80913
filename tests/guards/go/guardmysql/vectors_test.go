package guardmysql_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"tinystore.dev/go/guard"
	"tinystore.dev/go/locks"
	"tinystore.dev/go/tinystore"
)

// Every case of vectors/behaviour.json's "guard" section, on connections
// that count changed rows and on ones that count found rows: in one
// transaction a row into notes and the check; commit when it returns,
// roll back when it fails; then what notes and the register hold.
func TestEveryGuardVector(t *testing.T) {
	ctx := context.Background()
	for _, rows := range foundRows {
		for _, c := range vectorCases(t) {
			t.Run(rows.name+"/"+c.ID, func(t *testing.T) {
				db := open(t, rows.params)
				exec(t, db, "create table notes(resource text, fence text)")
				if c.hasTable() {
					for range 2 { // Ensure is safe to run again
						if err := guard.Ensure(ctx, db, guard.MySQL); err != nil {
							t.Fatal(err)
						}
					}
				}
				if c.Recorded != nil {
					exec(t, db, "insert into tinystore_fences values ('chats/42', ?)", *c.Recorded)
				}
				resource, f := c.resource(t), fence(t, c.Fence)
				tx, err := db.BeginTx(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				exec(t, tx, "insert into notes values (?, ?)", resource, fmt.Sprintf("%040s", f))
				outcome := guard.Check(ctx, tx, guard.MySQL, resource, f)
				if outcome == nil {
					err = tx.Commit()
				} else {
					err = tx.Rollback()
				}
				if err != nil {
					t.Fatal(err)
				}
				registered := ""
				if c.hasTable() {
					registered = register(t, db, resource)
				}
				judge(t, c, resource, f, outcome, count(t, db, "notes"), registered)
			})
		}
	}
}

func judge(t *testing.T, c vectorCase, resource string, f locks.Fence, outcome error, notes int, registered string) {
	t.Helper()
	if c.Expect == "accepted" {
		if outcome != nil {
			t.Fatalf("refused: %v", outcome)
		}
		if notes != 1 {
			t.Errorf("the accepted write's own row is missing")
		}
		if registered != c.RecordedAfter {
			t.Errorf("register holds %q; want %q", registered, c.RecordedAfter)
		}
		return
	}
	var e *locks.Error
	if !errors.As(outcome, &e) || string(e.Code) != c.Expect {
		t.Fatalf("got %v; want a %s error", outcome, c.Expect)
	}
	if !errors.Is(outcome, locks.Code(c.Expect)) {
		t.Errorf("errors.Is(%v, %s) is false", outcome, c.Expect)
	}
	if !strings.Contains(e.Message, c.MessageHas) {
		t.Errorf("message %q does not name %q", e.Message, c.MessageHas)
	}
	var stale *tinystore.StaleError
	if errors.As(outcome, &stale) != (c.Expect == "stale") {
		t.Errorf("errors.As(%v, *StaleError) for code %s", outcome, c.Expect)
	}
	if c.Largest != "" {
		if stale == nil || stale.Largest.String() != c.Largest || stale.Fence != f || stale.Resource != resource {
			t.Errorf("stale carries %+v; want resource %q, fence %s, largest %s", stale, resource, f, c.Largest)
		}
	}
	if !c.hasTable() {
		var driver *mysql.MySQLError
		if !errors.As(outcome, &driver) || driver.Number != 1146 || !strings.Contains(e.Message, "ensure") {
			t.Errorf("a missing table: %v; want invalid saying to run ensure, wrapping the driver's error 1146", outcome)
		}
	}
	if notes != 0 {
		t.Errorf("a refused write left its own row")
	}
	want := ""
	if c.Recorded != nil {
		want = *c.Recorded
	}
	if c.hasTable() && registered != want {
		t.Errorf("a refused write changed the register: %q; it held %q", registered, want)
	}
}
