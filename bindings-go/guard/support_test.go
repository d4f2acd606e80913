package guard_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"

	"tinystore.dev/go/guard"
	"tinystore.dev/go/locks"
)

// A backend is a real database the guard runs on: a SQLite file in a
// temporary directory, or a schema of its own on the PostgreSQL at
// $TINYSTORE_PG_URL (tests/guards/with-postgres.sh starts one).
type backend struct {
	name    string
	dialect guard.Dialect
	open    func(t *testing.T) *sql.DB
}

func backends(t *testing.T) []backend {
	all := []backend{{name: "sqlite", dialect: guard.SQLite, open: openSQLite}}
	url := os.Getenv("TINYSTORE_PG_URL")
	switch {
	case url != "":
		all = append(all, backend{name: "postgres", dialect: guard.Postgres, open: func(t *testing.T) *sql.DB {
			return openPostgres(t, url)
		}})
	case os.Getenv("TINYSTORE_REQUIRE_PG") == "1":
		t.Fatal("TINYSTORE_REQUIRE_PG=1 but TINYSTORE_PG_URL is unset: run under tests/guards/with-postgres.sh")
	default:
		t.Log("TINYSTORE_PG_URL is unset: PostgreSQL skipped")
	}
	return all
}

func openSQLite(t *testing.T) *sql.DB {
	t.Helper()
	path := filepath.Join(t.TempDir(), "app.db")
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// openPostgres gives a handle whose every connection works in a new schema
// of its own, so that each test starts with no tables.
func openPostgres(t *testing.T, url string) *sql.DB {
	t.Helper()
	ctx := context.Background()
	admin, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = admin.Close() }()
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "t_" + hex.EncodeToString(b[:])
	if _, err := admin.ExecContext(ctx, "create schema "+schema); err != nil {
		t.Fatal(err)
	}
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	db, err := sql.Open("pgx", url+sep+"search_path="+schema)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// rebind turns ? placeholders into the dialect's.
func rebind(d guard.Dialect, query string) string {
	if d != guard.Postgres {
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

func exec(t *testing.T, db guard.Execer, d guard.Dialect, query string, args ...any) {
	t.Helper()
	if _, err := db.ExecContext(context.Background(), rebind(d, query), args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// register is the fence recorded for resource, "" when none.
func register(t *testing.T, db *sql.DB, d guard.Dialect, resource string) string {
	t.Helper()
	var text string
	err := db.QueryRow(rebind(d, "select fence from tinystore_fences where resource = ?"), resource).Scan(&text)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		t.Fatal(err)
	}
	return text
}

func count(t *testing.T, db *sql.DB, table string) int {
	t.Helper()
	var n int
	if err := db.QueryRow("select count(*) from " + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func fence(t *testing.T, decimal string) locks.Fence {
	t.Helper()
	f, err := locks.ParseFence(decimal)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// vectorCase is one case of vectors/behaviour.json's "guard" section.
type vectorCase struct {
	ID            string          `json:"id"`
	Table         *bool           `json:"table"`
	Recorded      *string         `json:"recorded"`
	Resource      json.RawMessage `json:"resource"`
	Fence         string          `json:"fence"`
	Expect        string          `json:"expect"`
	RecordedAfter string          `json:"recorded_after"`
	Largest       string          `json:"largest"`
	MessageHas    string          `json:"message_has"`
}

func (c vectorCase) hasTable() bool { return c.Table == nil || *c.Table }

func (c vectorCase) resource(t *testing.T) string {
	if c.Resource == nil {
		return "chats/42"
	}
	var text string
	if json.Unmarshal(c.Resource, &text) == nil {
		return text
	}
	var r struct {
		Repeat string `json:"repeat"`
		Times  int    `json:"times"`
	}
	if err := json.Unmarshal(c.Resource, &r); err != nil {
		t.Fatalf("%s: resource: %v", c.ID, err)
	}
	return strings.Repeat(r.Repeat, r.Times)
}

func vectorCases(t *testing.T) []vectorCase {
	t.Helper()
	raw, err := os.ReadFile("../../vectors/behaviour.json")
	if err != nil {
		t.Fatal(err)
	}
	var all struct {
		Guard struct {
			Cases []vectorCase `json:"cases"`
		} `json:"guard"`
	}
	if err := json.Unmarshal(raw, &all); err != nil {
		t.Fatal(err)
	}
	if len(all.Guard.Cases) < 10 {
		t.Fatalf("%d guard cases: the vectors have lost cases", len(all.Guard.Cases))
	}
	return all.Guard.Cases
}
