package main

// The other ways to hold, for the torture worker (--ways all), as the Rust
// worker's torture_ways.rs holds them: several chats at once (HoldAll, each
// saved through the fenced update with its own lease's fence), read and
// write leases of a read-write lock, and weighted permits of a semaphore,
// one in three of the last three capped by a max_hold shorter than the
// hold, so that it is renewed once and runs out there. Only the server's
// audit log checks these (tests/torture/check.py).

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"tinystore.dev/go/locks"
	"tinystore.dev/go/tinystore"
)

const (
	poolKey     = "gpu"
	poolLimit   = 3
	maxHold     = 150 * time.Millisecond
	cappedPause = 220 * time.Millisecond
)

// otherWays holds the groups of the other ways, made once per worker.
type otherWays struct {
	summaries *locks.Locks
	reports   *locks.RWLocks
	pool      *locks.Semaphore
	db        *sql.DB
	worker    string
}

func newOtherWays(store *tinystore.Store, db *sql.DB, worker string, ttl time.Duration) *otherWays {
	return &otherWays{
		summaries: store.Locks("summaries", locks.TTL(ttl)),
		reports:   store.RWLocks("reports", locks.TTL(ttl)),
		pool:      store.Semaphore("pool", poolLimit, locks.TTL(ttl)),
		db:        db,
		worker:    worker,
	}
}

func (w *otherWays) close() {
	w.summaries.Close()
	w.reports.Close()
	w.pool.Close()
}

// hold runs the hold roll (0..99) picks: several chats (chat and other, one
// when they are the same), a read or a write of chat, or a weighted permit;
// one in three capped by a max_hold (then it ends with ErrLeaseLost).
func (w *otherWays) hold(ctx context.Context, roll int, chat, other int64, pause time.Duration) error {
	var opts []locks.Option
	if roll%3 == 0 {
		opts, pause = []locks.Option{locks.MaxHold(maxHold)}, cappedPause
	}
	sleep := func(context.Context) error { time.Sleep(pause); return nil }
	switch {
	case roll < 40:
		return w.several(ctx, chat, other, pause)
	case roll < 70:
		return w.reports.HoldRead(ctx, chat, func(ctx context.Context, _ *locks.Permit) error { return sleep(ctx) }, opts...)
	case roll < 85:
		return w.reports.HoldWrite(ctx, chat, func(ctx context.Context, _ *locks.Lease) error { return sleep(ctx) }, opts...)
	default:
		opts = append(opts, locks.Weight(roll%poolLimit+1))
		return w.pool.Hold(ctx, poolKey, func(ctx context.Context, _ *locks.Permit) error { return sleep(ctx) }, opts...)
	}
}

// several holds chat and other together and saves each with its own
// lease's fence.
func (w *otherWays) several(ctx context.Context, chat, other int64, pause time.Duration) error {
	chats := []any{chat}
	if chat != other {
		chats = append(chats, other)
	}
	return w.summaries.HoldAll(ctx, chats, func(ctx context.Context, leases []*locks.Lease) error {
		time.Sleep(pause)
		for i, lease := range leases {
			if err := saveLogged(ctx, w.db, chats[i].(int64), fmt.Sprintf("%040s", lease.Fence), w.worker); err != nil {
				if cause := context.Cause(ctx); cause != nil {
					return cause
				}
				return err
			}
		}
		return nil
	})
}
