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

// Group is the handle of a Locks or Semaphore group.
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
	return &Error{Code: CodeClosed, Message: fmt.Sprintf("group %s was closed", g.name)}
}

// Acquire waits first come first served for key and holds it. When ctx is
// done first, the wait is given up, no lease is left held, and the error
// wraps ctx.Err().
func (g *Group) Acquire(ctx context.Context, key string, o Options) (*Held, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("acquire %s/%s: %w", g.name, key, err)
	}
	held, op, err := g.start(key, o)
	if err != nil {
		return nil, err
	}
	if held != nil {
		return newHeld(held, g.name, key), nil
	}
	return g.wait(ctx, op, key) // op needs no group handle: Close does not wait for it
}

// start begins an acquire: a held lease, or an op to wait on.
func (g *Group) start(key string, o Options) (*C.TsHeld, *C.TsAcquire, error) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if g.p == nil {
		return nil, nil, g.closedError()
	}
	var held *C.TsHeld
	var op *C.TsAcquire
	var e C.TsError
	ptr, n := text(key)
	ok := C.ts_group_acquire(g.p, ptr, n, o.c(), &held, &op, &e)
	runtime.KeepAlive(g)
	if !ok {
		return nil, nil, failure(&e)
	}
	return held, op, nil
}

// wait blocks on op until it ends or ctx is done, then frees op.
func (g *Group) wait(ctx context.Context, op *C.TsAcquire, key string) (*Held, error) {
	defer C.ts_acquire_free(op)
	cancelled := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		C.ts_acquire_cancel(op)
		close(cancelled)
	})
	var held *C.TsHeld
	var e C.TsError
	ok := C.ts_acquire_wait(op, &held, &e)
	if !stop() && ctx.Err() != nil {
		<-cancelled // op stays alive until the cancel call returned
	}
	if !ok {
		err := failure(&e)
		if err == errCancelled {
			return nil, fmt.Errorf("acquire %s/%s: %w", g.name, key, ctx.Err())
		}
		return nil, err
	}
	return newHeld(held, g.name, key), nil
}

// TryAcquire holds key if it is free now; nil, nil when it is taken.
func (g *Group) TryAcquire(key string, o Options) (*Held, error) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if g.p == nil {
		return nil, g.closedError()
	}
	var held *C.TsHeld
	var e C.TsError
	ptr, n := text(key)
	ok := C.ts_group_try_acquire(g.p, ptr, n, o.c(), &held, &e)
	runtime.KeepAlive(g)
	if !ok {
		return nil, failure(&e)
	}
	if held == nil {
		return nil, nil
	}
	return newHeld(held, g.name, key), nil
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
