package locks

import (
	"context"
	"sync/atomic"
)

// An Observer is told of this process's waits, holds and guard checks, to
// trace them: package tinystore.dev/go/tinystoreotel is the one that makes
// OpenTelemetry's spans and counter of them (docs/observe.md). None is set
// by default, and then each of those calls costs one atomic load.
// An Observer must be safe for concurrent use; the functions it returns
// are each called once.
type Observer interface {
	// Wait is called as an acquire of key of the group at begins; the
	// function it gives is called with the acquire's outcome: the fence
	// granted (the zero Fence for a permit) or the error.
	Wait(ctx context.Context, at Place) (end func(fence Fence, err error))
	// Hold is called as Hold (HoldRead, HoldWrite, Lead) starts its
	// function, with the fence held (the zero Fence for a permit, which
	// no lease has); the context it gives is the
	// function's, and end is called once it was released (nil) or lost
	// (the ErrLeaseLost or ErrClosed error, or what the release said).
	Hold(ctx context.Context, at Place, fence Fence) (fnCtx context.Context, end func(lost error))
	// GuardCheck is called as a guard checks fence for resource on backend
	// (its dialect or store, e.g. "sqlite"); end is called with its verdict:
	// nil (accepted), a *StaleError (refused) or another error.
	GuardCheck(ctx context.Context, resource string, fence Fence, backend string) (end func(err error))
}

// Place is what a wait or a hold is for: the group's kind ("lock",
// "semaphore", "rwlock", "election"), its name and the key.
type Place struct {
	Kind, Name, Key string
}

type observerBox struct{ o Observer }

var observer atomic.Pointer[observerBox]

// SetObserver makes o the process's Observer from now on; nil removes it.
func SetObserver(o Observer) {
	if o == nil {
		observer.Store(nil)
		return
	}
	observer.Store(&observerBox{o})
}

// currentObserver is the process's Observer, nil when none is set; the
// guards of other packages read it through internal/handles.
func currentObserver() Observer {
	if box := observer.Load(); box != nil {
		return box.o
	}
	return nil
}
