package native

/*
#include "tinystore.h"
*/
import "C"

import (
	"fmt"
	"runtime"
	"sync"
	"time"
)

// TestStore is the handle of a test store (the core's testing::TestStore):
// a store in a temporary directory whose time the test controls.
type TestStore struct {
	mu      sync.Mutex
	p       *C.TsTestStore
	cleanup runtime.Cleanup
	// Dir is the store's directory, removed when it is closed.
	Dir string
	// Address is where other processes connect ("unix:PATH") when it is
	// served; "" when embedded.
	Address string
}

// StartTestStore makes a test store in a new temporary directory:
// embedded, or served by this process on its Unix socket.
func StartTestStore(served bool) (*TestStore, error) {
	var p *C.TsTestStore
	var e C.TsError
	if !C.ts_test_store_start(C.bool(served), &p, &e) {
		return nil, failure(&e)
	}
	var buf [4096]byte
	n := int(C.ts_test_store_dir(p, (*C.uint8_t)(&buf[0]), C.size_t(len(buf))))
	k := &TestStore{p: p, Dir: string(buf[:min(n, len(buf))])}
	n = int(C.ts_test_store_address(p, (*C.uint8_t)(&buf[0]), C.size_t(len(buf))))
	k.Address = string(buf[:min(n, len(buf))])
	k.cleanup = runtime.AddCleanup(k, func(p *C.TsTestStore) { C.ts_test_store_free(p) }, p)
	return k, nil
}

// Store is a new handle on the test store's store (what the kit's
// controls and the test's groups go through).
func (k *TestStore) Store() (*Store, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.p == nil {
		return nil, StoreClosed(k.Dir + " (a test store)")
	}
	var p *C.TsStore
	var e C.TsError
	ok := C.ts_test_store_store(k.p, &p, &e)
	runtime.KeepAlive(k)
	if !ok {
		return nil, failure(&e)
	}
	what := k.Address
	if what == "" {
		what = k.Dir
	}
	return newStore(p, what), nil
}

// Close closes the test store (its holders are told, its waiters fail),
// stops its server when served, removes its directory and frees the
// handle. Idempotent.
func (k *TestStore) Close() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	return end(k.p != nil, &k.cleanup,
		func(e *C.TsError) C.bool { return C.ts_test_store_close(k.p, e) },
		func() { C.ts_test_store_free(k.p); k.p = nil })
}

// Advance moves the time of store s forward d at once (the core's
// testing::advance); refused (invalid) unless s is a test store. On a
// connected store it waits for the reply in C.
func (s *Store) Advance(d time.Duration) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.p == nil {
		return s.closedError()
	}
	var e C.TsError
	ok := C.ts_testing_advance(s.p, C.uint64_t(max(d, 0)), &e)
	runtime.KeepAlive(s)
	if !ok {
		return failure(&e)
	}
	return nil
}

// ExpireKey ends every lease held on key of the groups called name in
// store s (the core's testing::expire_key) and says how many.
func (s *Store) ExpireKey(name, key string) (int, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.p == nil {
		return 0, s.closedError()
	}
	var n C.size_t
	var e C.TsError
	nptr, nn := text(name)
	kptr, kn := text(key)
	ok := C.ts_testing_expire_key(s.p, nptr, nn, kptr, kn, &n, &e)
	runtime.KeepAlive(s)
	if !ok {
		return 0, failure(&e)
	}
	return int(n), nil
}

// ExpireToldWithin is how long Expire waits for this side to be told of
// the loss the core already told (as the core waits for its holder).
const ExpireToldWithin = 10 * time.Second

// Expire ends the lease as if its holder had paused past its TTL (the
// core's testing::expire), then waits until Done is closed and the loss's
// hooks have run (a Hold's ctx is cancelled), or until stop is closed
// (then it returns stopErr()). A `lease_lost` error when it was no longer
// held; refused (invalid) unless its store is a test store.
func (h *Held) Expire(stop <-chan struct{}, stopErr func() error) error {
	h.mu.RLock()
	if h.p == nil {
		h.mu.RUnlock()
		return h.releasedError()
	}
	var e C.TsError
	ok := C.ts_testing_expire(h.p, &e)
	runtime.KeepAlive(h)
	h.mu.RUnlock()
	if !ok {
		return failure(&e)
	}
	timer := time.NewTimer(ExpireToldWithin)
	defer timer.Stop()
	select {
	case <-h.watch.told:
		return nil
	case <-stop:
		return stopErr()
	case <-timer.C:
		return NewError(codeInternal, fmt.Sprintf(
			"the lease on %s/%s was expired but its holder in Go was not told within %v", h.Name, h.Key, ExpireToldWithin))
	}
}
