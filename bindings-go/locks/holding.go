package locks

import (
	"context"

	"tinystore.dev/go/internal/native"
)

// holding is what a Lease and a Permit share: the held key and how to let
// it go.
type holding struct {
	h *native.Held
}

// Key is the key held, as text.
func (h holding) Key() string { return h.h.Key }

// Name is the group's name.
func (h holding) Name() string { return h.h.Name }

// Held reports whether it is still held: false once released, run out, or
// lost with its store or connection.
func (h holding) Held() bool { return h.h.Err() == nil }

// Err is nil while it is held, and then why it is not (an ErrLeaseLost or
// ErrClosed error).
func (h holding) Err() error { return h.h.Err() }

// Done is closed when it is lost (it ran out, its store closed, its
// connection broke) or released.
func (h holding) Done() <-chan struct{} { return h.h.Done() }

// Renew extends it by its TTL from now; fails with ErrLeaseLost, changing
// nothing, when it already ran out or was released. ctx is checked first;
// the call itself is not interrupted.
func (h holding) Renew(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return h.h.Renew()
}

// Release releases it and closes Done. Idempotent; fails with ErrLeaseLost
// when it ran out before this first release. It releases even when ctx is
// done already, so that a deferred Release never leaks a lease.
func (h holding) Release(ctx context.Context) error {
	_ = ctx
	return h.h.Release()
}

// hold runs fn with v under a ctx that is cancelled when the lease is lost,
// then releases it however fn ends (a panic goes on after the release).
// It returns fn's error; else the release's (a lease lost before fn ended).
func hold[T any](ctx context.Context, h holding, v T, fn func(context.Context, T) error) (err error) {
	fnCtx, cancel := context.WithCancelCause(ctx)
	h.h.OnLost(func() {
		if fnCtx.Err() == nil {
			cancel(h.h.Err())
		}
	})
	defer func() {
		cancel(nil)
		released := h.Release(context.WithoutCancel(ctx))
		if err == nil {
			err = released
		}
	}()
	return fn(fnCtx, v)
}
