package native

/*
#include "tinystore.h"
*/
import "C"

import (
	"runtime"
	"sync"
)

// Held is the handle of a held lease or permit.
type Held struct {
	mu      sync.RWMutex
	p       *C.TsHeld
	cleanup runtime.Cleanup
	watch   *watch
	// What the reports of a guard's refusals need once p is released and
	// freed (the lease itself, kept by the C side): made when a guard is
	// first given the lease (KeepRefusals), freed by a cleanup when the Go
	// handle goes.
	refusals *C.TsRefusals
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

// newHeld makes the Go handle of a grant, whose loss the C side reports
// to w.
func newHeld(g *C.TsGrant, w *watch, name, key string) *Held {
	h := &Held{p: g.held, watch: w, Name: name, Key: key}
	if g.has_fence {
		h.Epoch, h.Count, h.HasFence = uint64(g.fence.epoch), uint64(g.fence.count), true
	}
	h.cleanup = runtime.AddCleanup(h, func(f freed) {
		unwatch(f.token)
		C.ts_held_free(f.p)
	}, freed{g.held, w.token})
	return h
}

func (h *Held) releasedError() error {
	return Released(h.Name, h.Key)
}

// Done is closed when the lease is lost (it ran out, its store closed, its
// connection broke) or released.
func (h *Held) Done() <-chan struct{} { return h.watch.done }

// OnLost runs f once when Done closes, on the goroutine that saw the loss
// (at once, on this goroutine, if Done is closed already).
func (h *Held) OnLost(f func()) { h.watch.onLost(f) }

// Err is nil while the lease is held, and then why it is not.
func (h *Held) Err() error {
	held, reason := h.check()
	switch {
	case held:
		return nil
	case reason != nil:
		return reason
	default:
		return h.releasedError()
	}
}

// LostReason is why the lease was lost (the core's lost_reason: an error
// of code closed when its store closed, lease_lost when it ran out or its
// connection broke): nil while it is held, and once its holder released it.
func (h *Held) LostReason() error {
	_, reason := h.check()
	return reason
}

// check asks the core whether the lease is held, and if not, why it was
// lost (nil when its holder released it).
func (h *Held) check() (held bool, reason error) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if h.p == nil {
		return false, nil
	}
	var e C.TsError
	held = bool(C.ts_held_check(h.p, &e))
	runtime.KeepAlive(h)
	if e.message != nil {
		reason = failure(&e)
	}
	return held, reason
}

// KeepRefusals keeps what the reports of a guard's refusals under the
// lease need once its handle is released and freed (the C side's
// TsRefusals: the lease itself), so that ReportRefused still tells then;
// once per lease, and only while its handle is live. A guard given the
// lease calls it before its check, so that a lease that was released
// between two writes still tells the second's refusal, as in every
// language; a lease never given to a guard keeps nothing (a hold pays
// nothing for it). Nothing for a permit or a leadership.
func (h *Held) KeepRefusals() {
	if !h.HasFence {
		return
	}
	h.mu.RLock()
	kept := h.refusals != nil || h.p == nil
	h.mu.RUnlock()
	if kept {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.refusals != nil || h.p == nil {
		return
	}
	r := C.ts_held_refusals(h.p)
	if r == nil {
		return
	}
	h.refusals = r
	runtime.AddCleanup(h, func(r *C.TsRefusals) { C.ts_refusals_free(r) }, r)
}

// ReportRefused tells the lease's store that a guard refused a write under
// it to resource as stale, for the store to count per group. It never
// blocks nor fails, and tells after a release too once KeepRefusals kept
// what that needs; a permit tells nothing.
func (h *Held) ReportRefused(resource string) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	rp, rn := text(resource)
	switch {
	case h.p != nil:
		C.ts_held_report_refused(h.p, rp, rn)
	case h.refusals != nil:
		C.ts_refusals_report(h.refusals, rp, rn)
	}
	runtime.KeepAlive(h)
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

// Release releases the lease, closes Done and frees the handle (one C
// call).
// Idempotent; before this first release, a `closed` error when its store
// closed, a `lease_lost` error when it ran out or its connection broke.
func (h *Held) Release() error {
	return h.end(func(token C.uint64_t, pending *C.bool, e *C.TsError) C.bool {
		return C.ts_held_release(h.p, token, pending, e)
	})
}

// EndHold releases the lease at the end of a Hold whose fn succeeded
// (bodyOK) or failed (cancelledByLoss: with only the cancellation of its
// ctx that the loss caused), closes Done and frees the handle: the core's
// end_hold, so what a Hold adds to fn's result is decided there. The error
// the Hold returns instead of fn's outcome (closed or lease_lost, when the
// lease was lost during fn and fn succeeded or failed only by that loss);
// else nil, and fn's outcome stands.
func (h *Held) EndHold(bodyOK, cancelledByLoss bool) error {
	return h.end(func(token C.uint64_t, pending *C.bool, e *C.TsError) C.bool {
		return C.ts_held_end_hold(h.p, C.bool(bodyOK), C.bool(cancelledByLoss), token, pending, e)
	})
}

// end releases the lease and frees the handle through stop (once: later
// calls do nothing), then reports the lease gone to its watchers. When
// stop must wait for a reply, the goroutine parks (no thread waits in C)
// until the C side reports the end.
func (h *Held) end(stop func(C.uint64_t, *C.bool, *C.TsError) C.bool) error {
	h.mu.Lock()
	live := h.p != nil
	var err error
	if live {
		err = h.stop(stop)
	}
	h.mu.Unlock()
	if live {
		unwatch(h.watch.token)
		h.watch.lose()
	}
	return err
}

// stop runs stop on the live handle and waits for its end.
func (h *Held) stop(stop func(C.uint64_t, *C.bool, *C.TsError) C.bool) error {
	if err := doneReady(); err != nil {
		return err
	}
	token := nextToken.Add(1)
	var pending C.bool
	var e C.TsError
	ok := bool(stop(C.uint64_t(token), &pending, &e))
	h.cleanup.Stop()
	h.p = nil
	switch {
	case !ok:
		return failure(&e)
	case bool(pending):
		return <-meet(token)
	default:
		return nil
	}
}
