package native

/*
#include "tinystore.h"
*/
import "C"

import (
	"fmt"
	"runtime"
	"sync"
)

// Held is the handle of a held lease or permit.
type Held struct {
	mu      sync.RWMutex
	p       *C.TsHeld
	cleanup runtime.Cleanup
	watch   *watch
	// The group's name and the key, for messages.
	Name, Key string
	// The lease's fence; HasFence is false for a permit.
	Epoch, Count uint64
	HasFence     bool
}

// freed is what a held handle's cleanup needs: the C handle and the token
// of its watch.
type freed struct {
	p     *C.TsHeld
	token uint64
}

func newHeld(p *C.TsHeld, name, key string) *Held {
	h := &Held{p: p, Name: name, Key: key}
	var f C.TsFence
	if C.ts_held_fence(p, &f) {
		h.Epoch, h.Count, h.HasFence = uint64(f.epoch), uint64(f.count), true
	}
	h.watch = watchLoss(p)
	h.cleanup = runtime.AddCleanup(h, func(f freed) {
		unwatch(f.token)
		C.ts_held_free(f.p)
	}, freed{p, h.watch.token})
	return h
}

func (h *Held) releasedError() error {
	return &Error{Code: CodeLeaseLost, Message: fmt.Sprintf("the lease on %s/%s was released", h.Name, h.Key)}
}

// Done is closed when the lease is lost (it ran out, its store closed, its
// connection broke) or released.
func (h *Held) Done() <-chan struct{} { return h.watch.done }

// OnLost runs f once when Done closes, on the goroutine that saw the loss
// (at once, on this goroutine, if Done is closed already).
func (h *Held) OnLost(f func()) { h.watch.onLost(f) }

// Err is nil while the lease is held, and then why it is not.
func (h *Held) Err() error {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if h.p == nil {
		return h.releasedError()
	}
	var e C.TsError
	held := C.ts_held_check(h.p, &e)
	runtime.KeepAlive(h)
	if held {
		return nil
	}
	if e.message == nil {
		return &Error{Code: CodeLeaseLost, Message: fmt.Sprintf("the lease on %s/%s is not held", h.Name, h.Key)}
	}
	return failure(&e)
}

// Renew extends the lease by its TTL from now; a `lease_lost` error when
// it ran out or was released.
func (h *Held) Renew() error {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if h.p == nil {
		return h.releasedError()
	}
	var e C.TsError
	ok := C.ts_held_renew(h.p, &e)
	runtime.KeepAlive(h)
	if !ok {
		return failure(&e)
	}
	return nil
}

// Release releases the lease, closes Done and frees the handle.
// Idempotent; a `lease_lost` error when it ran out before this first
// release.
func (h *Held) Release() error {
	h.mu.Lock()
	if h.p == nil {
		h.mu.Unlock()
		return nil
	}
	var e C.TsError
	var err error
	if !C.ts_held_release(h.p, &e) {
		err = failure(&e)
	}
	h.cleanup.Stop()
	C.ts_held_free(h.p)
	h.p = nil
	h.mu.Unlock()
	unwatch(h.watch.token)
	h.watch.lose()
	return err
}
