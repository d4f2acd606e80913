package locks

import (
	"context"

	"tinystore.dev/go/internal/native"
)

// An Election is a lock whose holder is named: the leader. Its fence is
// the leader's term, larger for every later leader, so a resource that
// keeps the largest term it has seen refuses a deposed leader that paused.
// An election and a lock group or semaphore of one name are apart. Safe
// for concurrent use.
//
//	err := store.Election("scheduler").Lead(ctx, "worker-7", func(ctx context.Context, l *locks.Leadership) error {
//		term := fmt.Sprintf("%040s", l.Fence) // send it with every write
//		...
//	})
type Election struct {
	group
	name string
}

// A Leader is an election's leader as everyone sees it.
type Leader struct {
	// Value is what the leader said it is when it campaigned.
	Value string
	// Fence is its term: larger than every earlier leader's.
	Fence Fence
}

// Name is the election's name.
func (e *Election) Name() string { return e.name }

// Campaign waits, first come first served, until this caller leads with
// value (text of at most 1,024 bytes), until the Wait option runs out
// (ErrTimeout) or ctx is done (an error wrapping ctx.Err()); giving up
// never leaves a leadership behind, nor shows it to observers. The
// leadership is renewed every TTL/3 until it resigns, unless NoRenew is
// set.
func (e *Election) Campaign(ctx context.Context, value string, opts ...Option) (*Leadership, error) {
	if e.err != nil {
		return nil, e.err
	}
	h, err := e.g.Campaign(ctx, value, gather(opts...))
	if err != nil {
		return nil, err
	}
	return &Leadership{Value: value, Fence: Fence{Epoch: h.Epoch, Count: h.Count}, h: holding{h}}, nil
}

// Lead campaigns (as Campaign), runs fn while leading, and resigns however
// fn ends, as Locks.Hold does: the ctx given to fn is cancelled when the
// leadership is lost, with the ErrClosed or ErrLeaseLost error as its
// context.Cause; Lead returns fn's error, else that ErrClosed or
// ErrLeaseLost error when it was lost before fn ended, else nil.
func (e *Election) Lead(ctx context.Context, value string, fn func(ctx context.Context, l *Leadership) error, opts ...Option) error {
	l, err := e.Campaign(ctx, value, opts...)
	if err != nil {
		return err
	}
	return hold(ctx, "election", l.h, l, fn)
}

// Leader is the leader now, or nil when nobody leads. ctx is checked
// first; on a connected store the call then waits for the reply.
func (e *Election) Leader(ctx context.Context) (*Leader, error) {
	if e.err != nil {
		return nil, e.err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l, err := e.g.Leader()
	return leaderOf(l), err
}

func leaderOf(l *native.Leader) *Leader {
	if l == nil {
		return nil
	}
	return &Leader{Value: l.Value, Fence: Fence{Epoch: l.Epoch, Count: l.Count}}
}

// Observe gives every change of leader from now on, in order, with no gap
// and no repeat: the leader now first (nil when nobody leads), then each
// change, nil when nobody leads. The channel is closed when ctx is done,
// when the store closes, or when the reader fell more than 1,024 changes
// behind (observe again then). The error is why observing could not
// start (a bad name, a closed store). An observer holds one thread in the
// Rust library while it waits for a change.
func (e *Election) Observe(ctx context.Context) (<-chan *Leader, error) {
	if e.err != nil {
		return nil, e.err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	o, err := e.g.Observe()
	if err != nil {
		return nil, err
	}
	stop := context.AfterFunc(ctx, o.Close) // ends a Next under way
	first, more, err := o.Next()
	if err != nil || !more {
		stop()
		o.Free()
		if err == nil {
			err = ctx.Err()
		}
		return nil, err
	}
	changes := make(chan *Leader)
	go func() {
		defer close(changes)
		defer o.Free()
		defer stop()
		for leader := leaderOf(first); ; {
			select {
			case changes <- leader:
			case <-ctx.Done():
				return
			}
			next, more, err := o.Next()
			if err != nil || !more {
				return
			}
			leader = leaderOf(next)
		}
	}()
	return changes, nil
}

// A Leadership is leading an election: a lease with the leader's value,
// whose Fence is the term. Resign it (Lead does so itself); one dropped
// unresigned is resigned when the garbage collector finds it, as a safety
// net only.
type Leadership struct {
	// Value is what this leader campaigned with.
	Value string
	// Fence is the term: larger than every earlier leader's term and every
	// fence the store gave before. Send it with each write.
	Fence Fence
	h     holding
}

// Name is the election's name.
func (l *Leadership) Name() string { return l.h.Name() }

func (l *Leadership) nativeHeld() *native.Held { return l.h.h }

// Held reports whether it still leads: false once resigned, run out, or
// lost with its store or connection.
func (l *Leadership) Held() bool { return l.h.Held() }

// Err is nil while it leads, and then why it does not (an ErrLeaseLost or
// ErrClosed error).
func (l *Leadership) Err() error { return l.h.Err() }

// Done is closed when it is lost (it ran out, its store closed, its
// connection broke) or resigned.
func (l *Leadership) Done() <-chan struct{} { return l.h.Done() }

// Renew extends it by its TTL from now (needed only with NoRenew); fails
// with ErrLeaseLost, changing nothing, when it already ran out.
func (l *Leadership) Renew(ctx context.Context) error { return l.h.Renew(ctx) }

// Resign stops leading: the next campaigner in the queue leads at once, with a
// larger term. Idempotent; fails with ErrClosed or ErrLeaseLost when it was
// lost before this first resign. It resigns even when ctx is done already.
func (l *Leadership) Resign(ctx context.Context) error { return l.h.Release(ctx) }

// String names the leadership: its election, value and term.
func (l *Leadership) String() string {
	return "leadership of " + l.h.Name() + " by " + l.Value + " with term " + l.Fence.String()
}
