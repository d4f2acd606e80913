package native

/*
#include "tinystore.h"
*/
import "C"

import (
	"context"
	"fmt"
	"runtime"
	"sync"
)

// Group is the handle of a Locks or Semaphore group, of one side (read or
// write) of an RWLocks group, or of an election.
type Group struct {
	mu      sync.RWMutex
	p       *C.TsGroup
	cleanup runtime.Cleanup
	name    string
}

func newGroup(p *C.TsGroup, name string) *Group {
	g := &Group{p: p, name: name}
	g.cleanup = runtime.AddCleanup(g, func(p *C.TsGroup) { C.ts_group_free(p) }, p)
	return g
}

func (g *Group) closedError() error {
	return GroupClosed(g.name)
}

// Acquire waits first come first served for key and holds it. When ctx is
// done first, the wait is given up, no lease is left held, and the error
// wraps ctx.Err(). A free key costs one C call; a wait, three: a caller
// alone waits in C on its thread, woken straight from the runtime; when
// other calls wait too, no thread waits in C: the goroutine parks until
// the C side reports the end.
func (g *Group) Acquire(ctx context.Context, key string, o Options) (*Held, error) {
	return g.await(ctx, key, o, startAcquire)
}

// starter begins an acquire of g (key is a lock's key or a campaign's
// value): it fills grant, or op, whose end comes to token's waiter.
type starter func(g *C.TsGroup, text *C.uint8_t, n C.size_t, o C.TsOptions, token C.uint64_t,
	grant *C.TsGrant, op **C.TsAcquire, e *C.TsError) C.bool

func startAcquire(g *C.TsGroup, key *C.uint8_t, n C.size_t, o C.TsOptions, token C.uint64_t,
	grant *C.TsGrant, op **C.TsAcquire, e *C.TsError) C.bool {
	return C.ts_group_acquire(g, key, n, o, token, grant, op, e)
}

// await runs the acquire that begin starts: a grant at once, or a wait
// until it ends or ctx is done.
func (g *Group) await(ctx context.Context, key string, o Options, begin starter) (*Held, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("acquire %s/%s: %w", g.name, key, err)
	}
	if err := doneReady(); err != nil {
		return nil, err
	}
	w := newWatch()
	grant, op, err := g.start(key, o, w, begin)
	switch {
	case err != nil:
		unwatch(w.token)
		return nil, err
	case grant.held != nil:
		return newHeld(&grant, w, g.name, key), nil
	}
	held, err := g.wait(ctx, op, w, key) // op needs no group handle: Close does not wait for it
	if err != nil {
		unwatch(w.token)
	}
	return held, err
}

// start begins an acquire with begin: a grant, or an op whose end comes
// to w.token's waiter.
func (g *Group) start(key string, o Options, w *watch, begin starter) (C.TsGrant, *C.TsAcquire, error) {
	var grant C.TsGrant
	g.mu.RLock()
	defer g.mu.RUnlock()
	if g.p == nil {
		return grant, nil, g.closedError()
	}
	var op *C.TsAcquire
	var e C.TsError
	ptr, n := text(key)
	ok := begin(g.p, ptr, n, o.c(), C.uint64_t(w.token), &grant, &op, &e)
	runtime.KeepAlive(g)
	if !ok {
		return grant, nil, failure(&e)
	}
	return grant, op, nil
}

// wait waits until op ends or ctx is done, then takes its outcome or
// gives it up, and frees op. Alone in the process, it waits in C on its
// thread (ctx gives op up from another goroutine); else it parks until
// the C side reports the end.
func (g *Group) wait(ctx context.Context, op *C.TsAcquire, w *watch, key string) (*Held, error) {
	if err := g.waitEnd(ctx, op, w.token, key); err != nil {
		return nil, err
	}
	var grant C.TsGrant
	var e C.TsError
	if !C.ts_acquire_take(op, C.uint64_t(w.token), &grant, &e) {
		return nil, failure(&e)
	}
	if grant.held == nil { // given up: ctx is done
		return nil, fmt.Errorf("acquire %s/%s: %w", g.name, key, ctx.Err())
	}
	return newHeld(&grant, w, g.name, key), nil
}

// waitEnd waits until op ends or ctx is done (then op is given up), with
// token for the end's report. On an error op is freed; else its outcome
// waits to be taken. what names the keys for messages.
func (g *Group) waitEnd(ctx context.Context, op *C.TsAcquire, token uint64, what string) error {
	stop, fired := giveUpOnDone(ctx, op)
	var ended C.bool
	var e C.TsError
	ok := C.ts_acquire_wait(op, C.uint64_t(token), &ended, &e)
	if !stop() {
		<-fired // op is given up; its end comes at once
	}
	if !ok {
		C.ts_acquire_free(op)
		return failure(&e)
	}
	if !ended {
		select {
		case <-meet(token):
		case <-ctx.Done():
			C.ts_acquire_free(op) // gives it up first: no lease is left held
			return fmt.Errorf("acquire %s/%s: %w", g.name, what, ctx.Err())
		}
	}
	return nil
}

// giveUpOnDone gives op up when ctx is done. stop ends that; when it
// returns false the give-up ran or runs, and fired closes once it did.
// A ctx that can never be done costs nothing.
func giveUpOnDone(ctx context.Context, op *C.TsAcquire) (stop func() bool, fired chan struct{}) {
	if ctx.Done() == nil {
		return func() bool { return true }, nil
	}
	fired = make(chan struct{})
	stop = context.AfterFunc(ctx, func() {
		C.ts_acquire_cancel(op)
		close(fired)
	})
	return stop, fired
}

// TryAcquire holds key if it is free now; nil, nil when it is taken.
func (g *Group) TryAcquire(key string, o Options) (*Held, error) {
	w := newWatch()
	grant, err := g.try(key, o, w)
	if err != nil || grant.held == nil {
		unwatch(w.token)
		return nil, err
	}
	return newHeld(&grant, w, g.name, key), nil
}

// try takes key if it is free now: a grant, empty when it is taken.
func (g *Group) try(key string, o Options, w *watch) (C.TsGrant, error) {
	var grant C.TsGrant
	g.mu.RLock()
	defer g.mu.RUnlock()
	if g.p == nil {
		return grant, g.closedError()
	}
	var e C.TsError
	ptr, n := text(key)
	ok := C.ts_group_try_acquire(g.p, ptr, n, o.c(), C.uint64_t(w.token), &grant, &e)
	runtime.KeepAlive(g)
	if !ok {
		return grant, failure(&e)
	}
	return grant, nil
}

// Close frees the group's handle; leases it gave stay held. Idempotent.
func (g *Group) Close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.p == nil {
		return
	}
	g.cleanup.Stop()
	C.ts_group_free(g.p)
	g.p = nil
}
