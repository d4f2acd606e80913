package locks

import (
	"context"

	"tinystore.dev/go/internal/native"
)

// group is what Locks and Semaphore share: the native group (or why there
// is none) and the steps from a key to a held lease.
type group struct {
	g    *native.Group
	err  error
	kind string // as status names it, and its name: an Observer's Place
	name string
}

func openGroup(s *native.Store, name string, semaphore bool, limit int, opts []Option) group {
	g, err := s.Group(name, semaphore, clampLimit(limit), gather(opts...))
	kind := "lock"
	if semaphore {
		kind = "semaphore"
	}
	return group{g: g, err: err, kind: kind, name: name}
}

// clampLimit maps a limit (or a weight) outside uint32 to one the core
// refuses by name.
func clampLimit(limit int) uint32 {
	switch {
	case limit < 0:
		return 0
	case uint64(limit) > uint64(^uint32(0)):
		return ^uint32(0)
	default:
		return uint32(limit)
	}
}

func (g group) acquire(ctx context.Context, key any, opts []Option) (*native.Held, error) {
	if g.err != nil {
		return nil, g.err
	}
	text, err := keyText(key)
	if err != nil {
		return nil, err
	}
	if o := currentObserver(); o != nil {
		end := o.Wait(ctx, Place{Kind: g.kind, Name: g.name, Key: text})
		h, err := g.g.Acquire(ctx, text, gather(opts...))
		end(heldFence(h), err)
		return h, err
	}
	return g.g.Acquire(ctx, text, gather(opts...))
}

// heldFence is h's fence, the zero Fence for a permit (or no grant).
func heldFence(h *native.Held) Fence {
	if h == nil || !h.HasFence {
		return Fence{}
	}
	return Fence{Epoch: h.Epoch, Count: h.Count}
}

func (g group) tryAcquire(ctx context.Context, key any, opts []Option) (*native.Held, error) {
	if g.err != nil {
		return nil, g.err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	text, err := keyText(key)
	if err != nil {
		return nil, err
	}
	return g.g.TryAcquire(text, gather(opts...))
}

// Close frees the group's native handle; leases it gave stay held, and
// later calls fail with ErrClosed. Idempotent.
func (g group) Close() {
	if g.g != nil {
		g.g.Close()
	}
}
