package locks

import (
	"time"

	"tinystore.dev/go/internal/native"
)

// An Option sets the TTL, wait, renewing, max hold, weight or data of a group
// (given to Store.Locks, Store.Semaphore, Store.RWLocks or Store.Election)
// or of one call (Hold, Acquire, TryAcquire and their kin), which
// overrides the group's. Options are made only by the functions below.
type Option struct{ set func(*native.Options) }

// TTL sets how long a lease lives after its grant or last renewal
// (default 15s; from 10ms to 24h).
func TTL(d time.Duration) Option {
	return Option{func(o *native.Options) { o.SetDuration("ttl", d) }}
}

// Wait sets how long Acquire and Hold may wait for the key before they fail
// with ErrTimeout (default: until ctx is done).
func Wait(d time.Duration) Option {
	return Option{func(o *native.Options) { o.SetDuration("wait", d) }}
}

// NoRenew turns keeping alive off: a held lease then runs out TTL after
// its grant or last Renew, even while its holder runs.
func NoRenew() Option {
	return Option{func(o *native.Options) { o.SetBool("renew", false) }}
}

// MaxHold caps how long a lease is kept after its grant, renewals
// included (default: no cap; from 10ms to 30 days): past it, it is renewed
// no more and runs out, and its holder is told as for any lost lease (an
// ErrLeaseLost error naming max_hold). A holder whose work is stuck while
// its renewing lives cannot keep a key forever.
func MaxHold(d time.Duration) Option {
	return Option{func(o *native.Options) { o.SetDuration("max_hold", d) }}
}

// Weight makes a semaphore's permit take n places of its key at once
// (default 1; from 1 to the semaphore's limit), all or nothing, first come
// first served. Any other group refuses it with ErrInvalid.
func Weight(n int) Option {
	return Option{func(o *native.Options) { o.SetCount("weight", int64(n)) }}
}

// Data attaches text to the leases a group or a call takes: what their
// holder says about itself, kept with each lease, shown by Store.Status
// (HeldStatus.Data) and given to watchers. At most 1024 bytes of UTF-8:
// longer, or not UTF-8, fails the acquire with ErrInvalid before anything
// is granted. Default: this process's "HOST:PID"; Data("") attaches
// nothing. An election refuses it (a leader is known by its value).
func Data(text string) Option {
	return Option{func(o *native.Options) { o.SetText("data", text) }}
}

// gather gathers opts.
func gather(opts ...Option) native.Options {
	var o native.Options
	for _, opt := range opts {
		if opt.set != nil {
			opt.set(&o)
		}
	}
	return o
}
