package tinystore_test

import (
	"fmt"
	"testing"
	"time"

	"tinystore.dev/go/tinystore"
)

// waiters is how many callers st shows waiting for name/key.
func waiters(st *tinystore.Status, name, key string) int {
	n := 0
	for _, w := range st.Waiting {
		if w.Name == name && w.Key == key {
			n += w.Waiters
		}
	}
	return n
}

// untilWaiting returns once store's status shows n callers waiting for
// name/key: tests line up waiters on the store's state, never on a sleep.
// It fails the test after a generous deadline, naming what it saw.
func untilWaiting(t testing.TB, store *tinystore.Store, name, key string, n int) {
	t.Helper()
	untilStatus(t, store, func(st *tinystore.Status) (bool, string) {
		return waiters(st, name, key) == n,
			fmt.Sprintf("%d waiting for %s/%q never shown; the status shows %+v", n, name, key, st.Waiting)
	})
}

// untilStatus returns once shows says yes of store's status; after a
// generous deadline it fails the test with what shows said last.
func untilStatus(t testing.TB, store *tinystore.Store, shows func(*tinystore.Status) (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, err := store.Status(bg)
		if err != nil {
			t.Fatalf("status: %v", err)
		}
		ok, saw := shows(st)
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal(saw)
		}
		time.Sleep(time.Millisecond)
	}
}
