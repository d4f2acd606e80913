package tinystore_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"tinystore.dev/go/guard"
	"tinystore.dev/go/locks"
	"tinystore.dev/go/tinystore"
)

// Late writes refused by guards, told to the store: guard.Check on a real
// SQLite file, given the lease itself, refuses a stale write and tells the
// lease's store, whose Status (and a served store's metrics, scraped)
// count it per group; given only the fence it tells nobody; a server
// stopped (SIGSTOP) or gone never blocks nor fails the refusal.

// overtaken is a lease that ran out (not renewed) and was overtaken by a
// newer one that wrote first: it now writes late.
func overtaken(t *testing.T, store *tinystore.Store, db *sql.DB, name, key string) *locks.Lease {
	t.Helper()
	ctx := context.Background()
	group := store.Locks(name)
	old, err := group.Acquire(ctx, key, locks.TTL(20*time.Millisecond), locks.NoRenew())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = old.Release(ctx) })
	<-old.Done() // it ran out
	fresh, err := group.Acquire(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if err := guarded(db, name+"/"+key, fresh); err != nil {
		t.Fatal(err)
	}
	return old
}

// guarded is one guarded write's transaction: committed when accepted.
func guarded(db *sql.DB, resource string, under locks.Fenced) error {
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	if err := guard.Check(context.Background(), tx, guard.SQLite, resource, under); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

func lateWrite(t *testing.T, db *sql.DB, resource string, under locks.Fenced) {
	t.Helper()
	var stale *tinystore.StaleError
	if err := guarded(db, resource, under); !errors.As(err, &stale) || stale.Resource != resource {
		t.Fatalf("a late write to %s gave %v; want a stale refusal", resource, err)
	}
}

type count struct {
	name, kind string
	refused    uint64
}

func counts(t *testing.T, store *tinystore.Store) []count {
	t.Helper()
	status, err := store.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []count
	for _, r := range status.LateWritesRefused {
		got = append(got, count{r.Name, r.Kind, r.Refused})
	}
	return got
}

// untilCounts waits for the counts (a served store counts a message that
// comes after the guard's answer).
func untilCounts(t *testing.T, store *tinystore.Store, want []count) {
	t.Helper()
	for range 1000 {
		if reflect.DeepEqual(counts(t, store), want) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("late writes refused: %v; want %v", counts(t, store), want)
}

func sqliteDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "app.db"))
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { _ = db.Close() })
	if err := guard.Ensure(context.Background(), db, guard.SQLite); err != nil {
		t.Fatal(err)
	}
	return db
}

func refusalsAreCountedPerGroup(t *testing.T, store *tinystore.Store, db *sql.DB) {
	if got := counts(t, store); len(got) != 0 {
		t.Fatalf("a new store counts %v", got)
	}
	old := overtaken(t, store, db, "orders", "42")
	lateWrite(t, db, "orders/42", old)
	untilCounts(t, store, []count{{"orders", "lock", 1}})
	lateWrite(t, db, "orders/42", old.Fence) // the fence alone: told to nobody
	oldInvoice := overtaken(t, store, db, "invoices", "7")
	lateWrite(t, db, "invoices/7", oldInvoice)
	untilCounts(t, store, []count{{"invoices", "lock", 1}, {"orders", "lock", 1}})
}

func TestAnEmbeddedStoreCountsLateWrites(t *testing.T) {
	refusalsAreCountedPerGroup(t, openStore(t), sqliteDB(t))
}

// releasedTells: a lease given to a guard (an accepted write), then
// released, then overtaken by a newer holder that wrote: the guard refuses
// a late write made under the released lease, and its store counts it, as
// in every language (the lease's handle is freed at the release; what the
// report needs was kept when the guard was first given the lease).
func releasedTells(t *testing.T, store *tinystore.Store, db *sql.DB) {
	ctx := context.Background()
	group := store.Locks("released")
	old, err := group.Acquire(ctx, "1")
	if err != nil {
		t.Fatal(err)
	}
	if err := guarded(db, "released/1", old); err != nil {
		t.Fatal(err)
	}
	if err := old.Release(ctx); err != nil {
		t.Fatal(err)
	}
	fresh, err := group.Acquire(ctx, "1")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = fresh.Release(ctx) }()
	if err := guarded(db, "released/1", fresh); err != nil {
		t.Fatal(err)
	}
	lateWrite(t, db, "released/1", old)
	untilCounts(t, store, []count{{"released", "lock", 1}})
}

func TestAReleasedLeaseStillTellsItsRefusal_Embedded(t *testing.T) {
	releasedTells(t, openStore(t), sqliteDB(t))
}

func TestAReleasedLeaseStillTellsItsRefusal_Served(t *testing.T) {
	releasedTells(t, connect(t, serve(t)), sqliteDB(t))
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func refusedTotal(t *testing.T, metrics, name string) float64 {
	t.Helper()
	reply, err := http.Get("http://" + metrics + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer reply.Body.Close()
	body, _ := io.ReadAll(reply.Body)
	series := fmt.Sprintf(`tinystore_late_writes_refused_total{kind="lock",name=%q} `, name)
	for _, line := range strings.Split(string(body), "\n") {
		if value, ok := strings.CutPrefix(line, series); ok {
			v, err := strconv.ParseFloat(value, 64)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
	}
	return 0
}

func TestAServedStoreCountsLateWrites_AndAStoppedOrGoneOneNeverBlocksThem(t *testing.T) {
	metrics := freeAddr(t)
	s := serve(t, "--metrics", metrics)
	store := connect(t, s)
	db := sqliteDB(t)
	refusalsAreCountedPerGroup(t, store, db)
	if got := refusedTotal(t, metrics, "orders"); got != 1 {
		t.Fatalf("the metric counts %v refusals of orders; want 1", got)
	}

	old := overtaken(t, store, db, "stopped", "1")
	if err := s.process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	refused := make(chan error, 1)
	go func() { refused <- guarded(db, "stopped/1", old) }()
	select {
	case err := <-refused:
		if !errors.Is(err, tinystore.ErrStale) {
			t.Errorf("with the server stopped: %v; want a stale refusal", err)
		}
	case <-time.After(30 * time.Second): // a bound on a hang, not a measure
		t.Error("the refusal waited for a stopped server")
	}
	if err := s.process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	untilCounts(t, store, []count{{"invoices", "lock", 1}, {"orders", "lock", 1}, {"stopped", "lock", 1}})
	if got := refusedTotal(t, metrics, "stopped"); got != 1 {
		t.Fatalf("the metric counts %v refusals of stopped; want 1", got)
	}

	s.stop()
	lateWrite(t, db, "stopped/1", old) // the server is gone: still refused
}
