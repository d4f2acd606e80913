package locks

import (
	"context"

	"tinystore.dev/go/internal/native"
)

// A WatchKind names what a WatchEvent tells.
type WatchKind string

// The kinds of WatchEvent.
const (
	// WatchGranted: Key was granted, with its Fence (nil for a permit or
	// a read lease) and its holder's Data.
	WatchGranted WatchKind = "granted"
	// WatchReleased: a holder of Key released it; Fence as granted.
	WatchReleased WatchKind = "released"
	// WatchLost: a holder of Key lost it without releasing it, for Cause:
	// "expired" (its TTL or MaxHold ran out), "disconnected" (its holder's
	// connection ended) or "closed" (the store closed); Fence as granted.
	WatchLost WatchKind = "lost"
	// WatchQueue: Length acquires wait for Key now.
	WatchQueue WatchKind = "queue"
	// WatchLagged: the watcher fell behind and Missed events were dropped,
	// never to be seen; Key is "".
	WatchLagged WatchKind = "lagged"
)

// A WatchEvent is one thing that happened on a watched key, or to the
// watcher itself (WatchLagged). The fields its Kind has not are zero.
type WatchEvent struct {
	Kind WatchKind
	Key  string
	// Fence is the lease's fence; nil for a permit, a read lease, and
	// kinds without one.
	Fence *Fence
	// Data is what the holder said about itself (Data; by default its
	// "HOST:PID"), on WatchGranted; "" when it said nothing.
	Data string
	// Cause is why a lease was lost, on WatchLost.
	Cause string
	// Length is how many acquires wait for Key now, on WatchQueue.
	Length int
	// Missed is how many events were dropped, on WatchLagged.
	Missed int
}

func watchEventOf(e native.WatchEvent) WatchEvent {
	out := WatchEvent{Kind: WatchKind(e.Kind), Key: e.Key, Data: e.Data, Cause: e.Cause,
		Length: int(e.Length), Missed: int(e.Missed)}
	if e.HasFence {
		out.Fence = &Fence{Epoch: e.Epoch, Count: e.Count}
	}
	return out
}

// watch gives the events of key of g (every key when all) on a channel
// until ctx is done or the watch ends, then closes it.
func (g group) watch(ctx context.Context, key any, all bool) (<-chan WatchEvent, error) {
	if g.err != nil {
		return nil, g.err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	text := ""
	if !all {
		var err error
		if text, err = keyText(key); err != nil {
			return nil, err
		}
	}
	w, err := g.g.Watch(text, all)
	if err != nil {
		return nil, err
	}
	stop := context.AfterFunc(ctx, w.Close) // ends a Next under way
	events := make(chan WatchEvent)
	go func() {
		defer close(events)
		defer w.Free()
		defer stop()
		for {
			event, more, err := w.Next()
			if err != nil || !more {
				return
			}
			select {
			case events <- watchEventOf(event):
			case <-ctx.Done():
				return
			}
		}
	}()
	return events, nil
}

// Watch gives every grant of key (with its fence and its holder's data),
// release, loss (with its cause) and change of its queue's length from
// now on, in the store's order (Status tells what is held then). A reader
// that falls 1,024 events behind never slows the store or anyone else:
// the events it had no room for are dropped, and it receives one
// WatchLagged event where they were, then goes on. The channel is closed
// when ctx is done, when the store closes or when the connection to it
// broke (watch again then). The error is why watching could not start (a
// bad key, a closed store). A watcher holds one thread in the Rust
// library while it waits for an event.
func (l *Locks) Watch(ctx context.Context, key any) (<-chan WatchEvent, error) {
	return l.watch(ctx, key, false)
}

// WatchAll gives the events of every key of the group, as Watch gives
// one key's.
func (l *Locks) WatchAll(ctx context.Context) (<-chan WatchEvent, error) {
	return l.watch(ctx, nil, true)
}

// Watch gives the events of key as Locks.Watch does; a permit's grant has
// no fence.
func (s *Semaphore) Watch(ctx context.Context, key any) (<-chan WatchEvent, error) {
	return s.watch(ctx, key, false)
}

// WatchAll gives the events of every key of the group, as Watch gives
// one key's.
func (s *Semaphore) WatchAll(ctx context.Context) (<-chan WatchEvent, error) {
	return s.watch(ctx, nil, true)
}

// Watch gives the events of key as Locks.Watch does: a write lease's
// grant with its fence, a read lease's without.
func (rw *RWLocks) Watch(ctx context.Context, key any) (<-chan WatchEvent, error) {
	return rw.read.watch(ctx, key, false)
}

// WatchAll gives the events of every key of the group, as Watch gives
// one key's.
func (rw *RWLocks) WatchAll(ctx context.Context) (<-chan WatchEvent, error) {
	return rw.read.watch(ctx, nil, true)
}
