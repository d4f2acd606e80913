package native

/*
#include "tinystore.h"
*/
import "C"

import (
	"context"
	"fmt"
	"runtime"
	"strings"
)

// AcquireAll waits for every key of keys of the lock group g, or none:
// a lease per key, in the order of keys. The core takes them in one order
// for every caller (no deadlock) within the Wait option for all of them
// together. When ctx is done first, the wait is given up, none is left
// held, and the error wraps ctx.Err().
func (g *Group) AcquireAll(ctx context.Context, keys []string, o Options) ([]*Held, error) {
	what := "[" + strings.Join(keys, " ") + "]"
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("acquire %s/%s: %w", g.name, what, err)
	}
	if err := doneReady(); err != nil {
		return nil, err
	}
	ws := make([]*watch, len(keys))
	tokens := make([]C.uint64_t, len(keys))
	for i := range keys {
		ws[i] = newWatch()
		tokens[i] = C.uint64_t(ws[i].token)
	}
	grants, op, err := g.startAll(keys, o, tokens)
	if err == nil && op != nil {
		grants, err = g.waitAll(ctx, op, tokens, what)
	}
	if err != nil || len(grants) == 0 || grants[0].held == nil {
		for _, w := range ws {
			unwatch(w.token)
		}
		if err == nil { // given up: ctx is done
			err = fmt.Errorf("acquire %s/%s: %w", g.name, what, ctx.Err())
		}
		return nil, err
	}
	held := make([]*Held, len(keys))
	for i, key := range keys {
		held[i] = newHeld(&grants[i], ws[i], g.name, key)
	}
	return held, nil
}

// startAll begins acquiring keys: a grant per key, or an op whose end
// comes to the first token's waiter.
func (g *Group) startAll(keys []string, o Options, tokens []C.uint64_t) ([]C.TsGrant, *C.TsAcquire, error) {
	grants := make([]C.TsGrant, len(keys))
	lens := make([]C.size_t, len(keys))
	for i, key := range keys {
		lens[i] = C.size_t(len(key))
	}
	packed, n := text(strings.Join(keys, ""))
	g.mu.RLock()
	defer g.mu.RUnlock()
	if g.p == nil {
		return nil, nil, g.closedError()
	}
	var op *C.TsAcquire
	var e C.TsError
	ok := C.ts_group_acquire_all(g.p, packed, n, first(lens), C.size_t(len(keys)), o.c(),
		first(tokens), first(grants), &op, &e)
	runtime.KeepAlive(g)
	if !ok {
		return nil, nil, failure(&e)
	}
	return grants, op, nil
}

// waitAll waits until op ends or ctx is done, then takes its grants (none
// when it was given up) and frees op.
func (g *Group) waitAll(ctx context.Context, op *C.TsAcquire, tokens []C.uint64_t, what string) ([]C.TsGrant, error) {
	if err := g.waitEnd(ctx, op, uint64(tokens[0]), what); err != nil {
		return nil, err
	}
	grants := make([]C.TsGrant, len(tokens))
	var e C.TsError
	if !C.ts_acquire_take_all(op, first(tokens), first(grants), C.size_t(len(tokens)), &e) {
		return nil, failure(&e)
	}
	return grants, nil
}

// first is a pointer to the first of s for C, nil when s is empty.
func first[T any](s []T) *T {
	if len(s) == 0 {
		return nil
	}
	return &s[0]
}
