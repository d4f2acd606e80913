package native

import (
	"sync"
	"sync/atomic"
)

// A watch is the Go side of a lease's loss report: the C side puts its
// token in the completion queue when the lease is lost (a TsDone of kind
// TS_DONE_KIND_LOST); the goroutine that drains the queue (completion.go)
// closes the watch's done channel.
type watch struct {
	token uint64
	done  chan struct{}
	// told is closed once done is and the hooks of the loss have run (a
	// Hold's ctx is cancelled then): what the test kit's Expire waits for.
	told  chan struct{}
	mu    sync.Mutex
	lost  bool
	hooks []func()
}

var (
	watches   sync.Map // token -> *watch
	nextToken atomic.Uint64
)

// newWatch makes a watch for a lease to come: its token goes to the C
// side with the acquire, which reports the lease's loss with it. The
// drain of the completion queue is started first (doneReady), so that a
// loss has a reader.
func newWatch() *watch {
	_ = doneReady() // an error here is the acquire's too, and reported there
	w := &watch{token: nextToken.Add(1), done: make(chan struct{}), told: make(chan struct{})}
	watches.Store(w.token, w)
	return w
}

func unwatch(token uint64) { watches.Delete(token) }

// lost is the report of the loss of the lease watched with token.
func lost(token uint64) {
	if w, ok := watches.LoadAndDelete(token); ok {
		w.(*watch).lose()
	}
}

// lose closes done, runs the hooks, then closes told, once.
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
	defer close(w.told)
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
