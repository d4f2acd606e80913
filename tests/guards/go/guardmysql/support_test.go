package guardmysql_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"strings"
	"testing"

	_ "github.com/go-sql-driver/mysql"

	"tinystore.dev/go/guard"
	"tinystore.dev/go/locks"
)

// server is the MariaDB at $TINYSTORE_MYSQL_URL
// (mysql://USER@HOST:PORT/DB, as tests/guards/with-mariadb.sh gives it):
// the test is skipped when it is unset, and fails instead under
// TINYSTORE_REQUIRE_MYSQL=1.
func server(t *testing.T) *url.URL {
	t.Helper()
	raw := os.Getenv("TINYSTORE_MYSQL_URL")
	if raw == "" {
		if os.Getenv("TINYSTORE_REQUIRE_MYSQL") == "1" {
			t.Fatal("TINYSTORE_REQUIRE_MYSQL=1 but TINYSTORE_MYSQL_URL is unset: run under tests/guards/with-mariadb.sh")
		}
		t.Skip("TINYSTORE_MYSQL_URL is unset: MySQL skipped")
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "mysql" {
		t.Fatalf("TINYSTORE_MYSQL_URL %q is not a mysql:// URL", raw)
	}
	return u
}

// dsn is go-sql-driver's name for database on the server of u, logged in
// as user (u's own when ""), with params (such as "clientFoundRows=true").
func dsn(u *url.URL, user, database, params string) string {
	if user == "" {
		user = u.User.String()
	}
	d := user + "@tcp(" + u.Host + ")/" + database
	if params != "" {
		d += "?" + params
	}
	return d
}

// foundRows are the two ways a connection may count an upsert's rows:
// changed (the driver's default) or found (CLIENT_FOUND_ROWS).
var foundRows = []struct{ name, params string }{{"changed-rows", ""}, {"found-rows", "clientFoundRows=true"}}

// database is a database of the test's own on the server, dropped when
// the test ends.
type database struct {
	*sql.DB
	server *url.URL
	name   string
}

// open makes a fresh database and a handle on it with params.
func open(t *testing.T, params string) *database {
	t.Helper()
	u := server(t)
	var b [6]byte
	_, _ = rand.Read(b[:])
	d := &database{server: u, name: "go_" + hex.EncodeToString(b[:])}
	d.admin(t, "create database "+d.name)
	t.Cleanup(func() { d.admin(t, "drop database if exists "+d.name) })
	db, err := sql.Open("mysql", dsn(u, "", d.name, params))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	d.DB = db
	return d
}

// admin runs statements on a connection of its own, in no database.
func (d *database) admin(t *testing.T, statements ...string) {
	t.Helper()
	db, err := sql.Open("mysql", dsn(d.server, "", "", ""))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	for _, s := range statements {
		if _, err := db.ExecContext(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// ensured is open with the register made and a notes table.
func ensured(t *testing.T, params string) *database {
	t.Helper()
	d := open(t, params)
	if err := guard.Ensure(context.Background(), d, guard.MySQL); err != nil {
		t.Fatal(err)
	}
	exec(t, d, "create table notes(resource text, fence text)")
	return d
}

func exec(t *testing.T, db guard.Execer, query string, args ...any) {
	t.Helper()
	if _, err := db.ExecContext(context.Background(), query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// register is the fence recorded for resource, "" when none.
func register(t *testing.T, db *database, resource string) string {
	t.Helper()
	var text string
	err := db.QueryRow("select fence from tinystore_fences where resource = ?", resource).Scan(&text)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		t.Fatal(err)
	}
	return text
}

func count(t *testing.T, db *database, table string) int {
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
	raw, err := os.ReadFile("../../../../vectors/behaviour.json")
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
