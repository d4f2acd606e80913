package locks

import (
	"context"
)

// Semaphore is a group of semaphores: up to its limit of holders per key
// at once, each with a *Permit (which has no fence). Safe for concurrent
// use. Keys are as for Locks.
type Semaphore struct {
	group
}

// Acquire waits first come first served for a place of key, as
// Locks.Acquire does.
func (s *Semaphore) Acquire(ctx context.Context, key any, opts ...Option) (*Permit, error) {
	h, err := s.acquire(ctx, key, opts)
	if err != nil {
		return nil, err
	}
	return &Permit{holding{h}}, nil
}

// TryAcquire takes a place of key if one is free now: ok is false when
// none is.
func (s *Semaphore) TryAcquire(ctx context.Context, key any, opts ...Option) (permit *Permit, ok bool, err error) {
	h, err := s.tryAcquire(ctx, key, opts)
	if err != nil || h == nil {
		return nil, false, err
	}
	return &Permit{holding{h}}, true, nil
}

// Hold acquires a place of key, runs fn with the permit, and releases it
// however fn ends, as Locks.Hold does.
func (s *Semaphore) Hold(ctx context.Context, key any, fn func(ctx context.Context, permit *Permit) error, opts ...Option) error {
	permit, err := s.Acquire(ctx, key, opts...)
	if err != nil {
		return err
	}
	return hold(ctx, "semaphore", permit.holding, permit, fn)
}
