package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"tinystore.dev/go/locks"
	"tinystore.dev/go/tinystore"
)

// tally is what a torture worker saw.
type tally struct{ saves, lost, errors, ways int }

const saveLog = `create table if not exists save_log (
    seq integer primary key autoincrement,
    chat integer not null, fence text not null, worker text not null,
    accepted integer not null, kept text not null)`

// saveLogged runs the fenced update and its save_log row in one
// `begin immediate` transaction.
func saveLogged(ctx context.Context, db *sql.DB, chat int64, fence, worker string) error {
	return immediate(ctx, db, func(c conn) error {
		changed, err := save(ctx, c, chat, "summary by "+worker, fence)
		if err != nil {
			return err
		}
		_, err = c.ExecContext(ctx, `insert into save_log (chat, fence, worker, accepted, kept)
			values (?, ?, ?, ?, (select summary_fence from chats where id = ?))`, chat, fence, worker, changed, chat)
		return err
	})
}

// runTorture holds random chats among 1..chats and saves through the fenced
// update until seconds pass, pausing up to longestPause in each hold before
// its save, carrying on through lost leases and a server that is down or
// restarting. With allWays, half the holds are of the other ways to hold
// (torture_ways.go): several chats, reads, writes, weighted permits, some
// capped by a max_hold.
func runTorture(ctx context.Context, store *tinystore.Store, path, worker string, chats int64, seconds int64, ttl, longestPause time.Duration, allWays bool) (tally, error) {
	var t tally
	db, err := openDB(ctx, path)
	if err != nil {
		return t, err
	}
	defer func() { _ = db.Close() }()
	if _, err := db.ExecContext(ctx, saveLog); err != nil {
		return t, err
	}
	if err := seed(ctx, db, chats); err != nil {
		return t, err
	}
	summaries := store.Locks("summaries", locks.TTL(ttl))
	ways := newOtherWays(store, db, worker, ttl)
	defer ways.close()
	deadline := time.Now().Add(time.Duration(seconds) * time.Second)
	for time.Now().Before(deadline) {
		chat := 1 + rand.Int64N(chats)
		pause := time.Duration(rand.Int64N(int64(longestPause/time.Millisecond)+1)) * time.Millisecond
		done, err := &t.saves, error(nil)
		if allWays && rand.IntN(2) == 0 {
			done, err = &t.ways, ways.hold(ctx, rand.IntN(100), chat, 1+rand.Int64N(chats), pause)
		} else {
			err = holdOneChat(ctx, summaries, db, chat, worker, pause)
		}
		switch {
		case err == nil:
			*done++
		case errors.Is(err, locks.ErrLeaseLost):
			*done++
			t.lost++
		default:
			t.errors++
			time.Sleep(50 * time.Millisecond)
		}
	}
	return t, nil
}

// holdOneChat holds chat, pauses, and saves through the fenced update.
func holdOneChat(ctx context.Context, summaries *locks.Locks, db *sql.DB, chat int64, worker string, pause time.Duration) error {
	return summaries.Hold(ctx, chat, func(ctx context.Context, lease *locks.Lease) error {
		time.Sleep(pause)
		if err := saveLogged(ctx, db, chat, fmt.Sprintf("%040s", lease.Fence), worker); err != nil {
			// A lost lease cancels ctx: report the loss, not the cancel.
			if cause := context.Cause(ctx); cause != nil {
				return cause
			}
			return err
		}
		return nil
	})
}
