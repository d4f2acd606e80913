package native

/*
#include <stdlib.h>
#include "tinystore.h"
*/
import "C"

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// A watch is the Go side of a lease's loss report: the C side puts its
// token in a queue when the lease is lost; one goroutine drains the queue
// and closes the watch's done channel.
type watch struct {
	token uint64
	done  chan struct{}
	mu    sync.Mutex
	lost  bool
	hooks []func()
}

var (
	watches    sync.Map // token -> *watch
	nextToken  atomic.Uint64
	dispatcher sync.Once
)

// newWatch makes a watch for a lease to come: its token goes to the C
// side with the acquire, which reports the lease's loss with it.
func newWatch() *watch {
	dispatcher.Do(func() { go dispatch() })
	w := &watch{token: nextToken.Add(1), done: make(chan struct{})}
	watches.Store(w.token, w)
	return w
}

func unwatch(token uint64) { watches.Delete(token) }

// dispatch waits for lost leases for the rest of the process, in one
// thread blocked in C.
func dispatch() {
	const capacity = 256
	buf := (*C.uint64_t)(C.malloc(C.size_t(capacity * unsafe.Sizeof(C.uint64_t(0)))))
	tokens := unsafe.Slice(buf, capacity)
	for {
		n := int(C.ts_lost_wait(buf, capacity))
		for _, token := range tokens[:n] {
			if w, ok := watches.LoadAndDelete(uint64(token)); ok {
				w.(*watch).lose()
			}
		}
	}
}

// lose closes done and runs the hooks, once.
func (w *watch) lose() {
	w.mu.Lock()
	if w.lost {
		w.mu.Unlock()
		return
	}
	w.lost = true
	hooks := w.hooks
	w.hooks = nil
	close(w.done)
	w.mu.Unlock()
	for _, f := range hooks {
		f()
	}
}

func (w *watch) onLost(f func()) {
	w.mu.Lock()
	if !w.lost {
		w.hooks = append(w.hooks, f)
		w.mu.Unlock()
		return
	}
	w.mu.Unlock()
	f()
}
