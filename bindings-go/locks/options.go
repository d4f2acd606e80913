package locks

import (
	"time"

	"tinystore.dev/go/internal/native"
)

// An Option sets the TTL, wait or renewing of a group (given to
// Store.Locks or Store.Semaphore) or of one call (Hold, Acquire,
// TryAcquire), which overrides the group's.
type Option func(*native.Options)

// TTL sets how long a lease lives after its grant or last renewal
// (default 15s; from 10ms to 24h).
func TTL(d time.Duration) Option {
	return func(o *native.Options) { o.HasTTL, o.TTL = true, d }
}

// Wait sets how long Acquire and Hold may wait for the key before they fail
// with ErrTimeout (default: until ctx is done).
func Wait(d time.Duration) Option {
	return func(o *native.Options) { o.HasWait, o.Wait = true, d }
}

// NoRenew turns keeping alive off: a held lease then runs out TTL after
// its grant or last Renew, even while its holder runs.
func NoRenew() Option {
	return func(o *native.Options) { o.HasRenew, o.Renew = true, false }
}

// gather gathers opts.
func gather(opts ...Option) native.Options {
	var o native.Options
	for _, opt := range opts {
		opt(&o)
	}
	return o
}
