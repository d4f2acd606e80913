package native

/*
#include "tinystore.h"
*/
import "C"

import (
	"context"
	"runtime"
	"sync"
	"unsafe"
)

// Leader is an election's leader: its value and its term.
type Leader struct {
	Value        string
	Epoch, Count uint64
}

// leaderOf copies a leader written by the C side (nil when nobody leads)
// and frees its value.
func leaderOf(l *C.TsLeader) *Leader {
	defer C.ts_leader_clear(l)
	if !l.has_leader {
		return nil
	}
	value := C.GoStringN((*C.char)(unsafe.Pointer(l.value)), C.int(l.value_len))
	return &Leader{Value: value, Epoch: uint64(l.fence.epoch), Count: uint64(l.fence.count)}
}

// Campaign waits first come first served until this caller leads the
// election g with value, the text the leader is known by, and holds the
// leadership (its fence the term). ctx gives it up as it gives up
// Acquire.
func (g *Group) Campaign(ctx context.Context, value string, o Options) (*Held, error) {
	return g.await(ctx, value, o, startCampaign)
}

func startCampaign(g *C.TsGroup, value *C.uint8_t, n C.size_t, o C.TsOptions, token C.uint64_t,
	grant *C.TsGrant, op **C.TsAcquire, e *C.TsError) C.bool {
	return C.ts_election_campaign(g, value, n, o, token, grant, op, e)
}

// Leader is the leader of the election g now, or nil when nobody leads.
// On a connected store it waits for the reply in C.
func (g *Group) Leader() (*Leader, error) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if g.p == nil {
		return nil, g.closedError()
	}
	var l C.TsLeader
	var e C.TsError
	ok := C.ts_election_leader(g.p, &l, &e)
	runtime.KeepAlive(g)
	if !ok {
		return nil, failure(&e)
	}
	return leaderOf(&l), nil
}

// Observer is the handle of an election's observer. Next blocks a thread
// in C until the next change; Close, from any goroutine, ends a Next under
// way; Free waits for it.
type Observer struct {
	mu      sync.RWMutex
	p       *C.TsObserver
	cleanup runtime.Cleanup
}

// Observe starts observing the election g: on an embedded store no change
// made after it returns is missed.
func (g *Group) Observe() (*Observer, error) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if g.p == nil {
		return nil, g.closedError()
	}
	var p *C.TsObserver
	var e C.TsError
	ok := C.ts_election_observe(g.p, &p, &e)
	runtime.KeepAlive(g)
	if !ok {
		return nil, failure(&e)
	}
	o := &Observer{p: p}
	o.cleanup = runtime.AddCleanup(o, func(p *C.TsObserver) { C.ts_observer_free(p) }, p)
	return o, nil
}

// Next blocks until the next change: the leader (nil when nobody leads)
// and more true; more false once the observer ended (closed, or after the
// one error that ends it: closed, limit).
func (o *Observer) Next() (leader *Leader, more bool, err error) {
	o.mu.RLock()
	defer o.mu.RUnlock()
	if o.p == nil {
		return nil, false, nil
	}
	var l C.TsLeader
	var m C.bool
	var e C.TsError
	ok := C.ts_observer_next(o.p, &l, &m, &e)
	runtime.KeepAlive(o)
	if !ok {
		return nil, false, failure(&e)
	}
	return leaderOf(&l), bool(m), nil
}

// Close stops observing: a Next under way, and every later one, returns
// more false. Idempotent; safe beside a Next.
func (o *Observer) Close() {
	o.mu.RLock()
	defer o.mu.RUnlock()
	if o.p != nil {
		C.ts_observer_close(o.p)
		runtime.KeepAlive(o)
	}
}

// Free closes the observer and frees its handle, once a Next under way
// returned. Idempotent.
func (o *Observer) Free() {
	o.Close()
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.p == nil {
		return
	}
	o.cleanup.Stop()
	C.ts_observer_free(o.p)
	o.p = nil
}
