package guard_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"tinystore.dev/go/guard"
	"tinystore.dev/go/locks"
	"tinystore.dev/go/tinystore"
	"tinystore.dev/go/tinystoretest"
)

// checks records the guard checks an Observer is told of.
type checks struct {
	mu   sync.Mutex
	seen []seenCheck
}

type seenCheck struct {
	resource, backend string
	fence             locks.Fence
	err               error
}

func (c *checks) Wait(context.Context, locks.Place) func(locks.Fence, error) {
	return func(locks.Fence, error) {}
}

func (c *checks) Hold(ctx context.Context, _ locks.Place, _ locks.Fence) (context.Context, func(error)) {
	return ctx, func(error) {}
}

func (c *checks) GuardCheck(_ context.Context, resource string, fence locks.Fence, backend string) func(error) {
	return func(err error) {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.seen = append(c.seen, seenCheck{resource, backend, fence, err})
	}
}

// A request sent through Transport given the lease, whose write the
// service's guard (SQLite, in the handler's transaction) refuses with 409,
// is told to the lease's store, which counts it; the Observer sees the
// request as an http check, accepted then stale with the largest fence.
func TestTransportGivenTheLeaseTellsAndTracesARefusal(t *testing.T) {
	ctx := context.Background()
	seen := &checks{}
	locks.SetObserver(seen)
	t.Cleanup(func() { locks.SetObserver(nil) })
	db := openSQLite(t)
	if err := guard.Ensure(ctx, db, guard.SQLite); err != nil {
		t.Fatal(err)
	}
	service := httptest.NewServer(guard.Handler(func(w http.ResponseWriter, r *http.Request) error {
		fence, _ := guard.FenceFrom(r.Context())
		tx, err := db.BeginTx(r.Context(), nil)
		if err != nil {
			return err
		}
		defer func() { _ = tx.Rollback() }()
		if err := guard.Check(r.Context(), tx, guard.SQLite, "chats/42", fence); err != nil {
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
		_, err = w.Write([]byte("saved"))
		return err
	}))
	defer service.Close()

	kit := tinystoretest.New(t)
	chats := kit.Store().Locks("http-chats")
	old, err := chats.Acquire(ctx, "42", locks.TTL(20*time.Millisecond), locks.NoRenew())
	if err != nil {
		t.Fatal(err)
	}
	<-old.Done() // it ran out
	later, err := chats.Acquire(ctx, "42")
	if err != nil {
		t.Fatal(err)
	}
	defer later.Release(ctx)
	post := func(under locks.Fenced) int {
		client := &http.Client{Transport: &guard.Transport{Fence: under}}
		resp, err := client.Post(service.URL+"/chats/42", "text/plain", nil)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	if code := post(later); code != http.StatusOK {
		t.Fatalf("the later holder's request: %d", code)
	}
	if code := post(old); code != http.StatusConflict {
		t.Fatalf("the late holder's request: %d; want 409", code)
	}
	if code := post(old.Fence); code != http.StatusConflict { // the fence alone: told to nobody
		t.Fatalf("the late fence's request: %d; want 409", code)
	}
	status, err := kit.Store().Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := tinystore.RefusedStatus{Name: "http-chats", Kind: "lock", Refused: 1}
	if len(status.LateWritesRefused) != 1 || status.LateWritesRefused[0] != want {
		t.Fatalf("late writes refused: %v; want %v", status.LateWritesRefused, want)
	}

	seen.mu.Lock()
	defer seen.mu.Unlock()
	var viaHTTP []seenCheck
	for _, c := range seen.seen {
		if c.backend == "http" {
			viaHTTP = append(viaHTTP, c)
		}
	}
	resource := service.Listener.Addr().String() + "/chats/42"
	if len(viaHTTP) != 3 || viaHTTP[0].resource != resource || viaHTTP[0].fence != later.Fence || viaHTTP[0].err != nil {
		t.Fatalf("http checks seen: %+v; want the later fence's accepted on %s first", viaHTTP, resource)
	}
	for _, c := range viaHTTP[1:] {
		var stale *locks.StaleError
		if c.fence != old.Fence || !errors.As(c.err, &stale) || stale.Largest != later.Fence || stale.Resource != resource {
			t.Fatalf("a late request seen as %+v; want stale under %v, largest %v", c, old.Fence, later.Fence)
		}
	}
}
