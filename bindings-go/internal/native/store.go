package native

/*
#include "tinystore.h"
*/
import "C"

import (
	"runtime"
	"sync"
	"time"
)

// Store is an open store's handle.
type Store struct {
	mu      sync.RWMutex
	p       *C.TsStore
	cleanup runtime.Cleanup
	// What the store is, for messages: its directory or address.
	What string
}

func newStore(p *C.TsStore, what string) *Store {
	s := &Store{p: p, What: what}
	s.cleanup = runtime.AddCleanup(s, func(p *C.TsStore) { C.ts_store_free(p) }, p)
	return s
}

// Open opens the store directory dir.
func Open(dir string) (*Store, error) {
	var p *C.TsStore
	var e C.TsError
	ptr, n := text(dir)
	if !C.ts_store_open(ptr, n, &p, &e) {
		return nil, failure(&e)
	}
	return newStore(p, dir), nil
}

// Connect connects to a store served at address, with the TCP token when
// it is not empty, waiting up to timeout (0: the core's default).
func Connect(address, token string, timeout time.Duration) (*Store, error) {
	var p *C.TsStore
	var e C.TsError
	aptr, an := text(address)
	tptr, tn := text(token)
	if !C.ts_store_connect(aptr, an, tptr, tn, C.uint64_t(max(timeout, 0)), &p, &e) {
		return nil, failure(&e)
	}
	return newStore(p, address), nil
}

func (s *Store) closedError() error {
	return StoreClosed(s.What)
}

// Close closes the store (releasing every lease, failing every waiter) and
// frees the handle. Idempotent.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return end(s.p != nil, &s.cleanup,
		func(e *C.TsError) C.bool { return C.ts_store_close(s.p, e) },
		func() { C.ts_store_free(s.p); s.p = nil })
}

// end ends a live handle: stop (the C call that closes or shuts it down),
// then its cleanup is stopped and free frees it (and forgets it, so that
// the next call finds it not live). The caller holds the handle's lock.
func end(live bool, cleanup *runtime.Cleanup, stop func(*C.TsError) C.bool, free func()) error {
	if !live {
		return nil
	}
	var e C.TsError
	var err error
	if !stop(&e) {
		err = failure(&e)
	}
	cleanup.Stop()
	free()
	return err
}

// Group makes the group called name: a semaphore of limit holders per key
// when semaphore is true, otherwise exclusive locks.
func (s *Store) Group(name string, semaphore bool, limit uint32, o Options) (*Group, error) {
	var kind uint32 = C.TS_GROUP_KIND_LOCKS
	if semaphore {
		kind = C.TS_GROUP_KIND_SEMAPHORE
	}
	return s.group(name, kind, limit, o)
}

// Election makes the election called name: a group that campaigns
// (Campaign) with a value and has no key to acquire.
func (s *Store) Election(name string, o Options) (*Group, error) {
	return s.group(name, C.TS_GROUP_KIND_ELECTION, 0, o)
}

// RWLocks makes the two sides of the read-write locks called name: read,
// whose acquires share a key and grant permits, and write, whose acquires
// hold a key alone and grant leases with fences.
func (s *Store) RWLocks(name string, o Options) (read, write *Group, err error) {
	if read, err = s.group(name, C.TS_GROUP_KIND_RW_READ, 0, o); err != nil {
		return nil, nil, err
	}
	if write, err = s.group(name, C.TS_GROUP_KIND_RW_WRITE, 0, o); err != nil {
		read.Close()
		return nil, nil, err
	}
	return read, write, nil
}

func (s *Store) group(name string, kind uint32, limit uint32, o Options) (*Group, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.p == nil {
		return nil, s.closedError()
	}
	var p *C.TsGroup
	var e C.TsError
	ptr, n := text(name)
	ok := C.ts_store_group(s.p, ptr, n, kind, C.uint32_t(limit), o.c(), &p, &e)
	runtime.KeepAlive(s)
	if !ok {
		return nil, failure(&e)
	}
	return newGroup(p, name), nil
}
