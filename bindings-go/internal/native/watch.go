package native

/*
#include "tinystore.h"
*/
import "C"

import (
	"runtime"
	"sync"
	"unsafe"
)

// WatchEvent is one event of a watch, as the C side writes it.
type WatchEvent struct {
	// Kind is "granted", "released", "lost", "queue" or "lagged".
	Kind         string
	Key          string
	HasFence     bool
	Epoch, Count uint64
	HasData      bool
	Data         string
	Cause        string
	Length       uint64
	Missed       uint64
}

var watchKinds = [...]string{"granted", "released", "lost", "queue", "lagged"}

// bytesText copies n bytes at p (NULL when n is 0) as a string.
func bytesText(p *C.uint8_t, n C.size_t) string {
	if n == 0 {
		return ""
	}
	return C.GoStringN((*C.char)(unsafe.Pointer(p)), C.int(n))
}

// eventOf copies an event written by the C side and frees its texts.
func eventOf(ev *C.TsWatchEvent) WatchEvent {
	defer C.ts_watch_event_clear(ev)
	kind := "lagged"
	if int(ev.kind) < len(watchKinds) {
		kind = watchKinds[ev.kind]
	}
	return WatchEvent{
		Kind:     kind,
		Key:      bytesText(ev.key, ev.key_len),
		HasFence: bool(ev.has_fence),
		Epoch:    uint64(ev.fence.epoch),
		Count:    uint64(ev.fence.count),
		HasData:  bool(ev.has_data),
		Data:     bytesText(ev.data, ev.data_len),
		Cause:    bytesText(ev.cause, ev.cause_len),
		Length:   uint64(ev.length),
		Missed:   uint64(ev.missed),
	}
}

// Watcher is the handle of a group's watch. Next blocks a thread in C
// until the next event; Close, from any goroutine, ends a Next under way;
// Free waits for it.
type Watcher struct {
	mu      sync.RWMutex
	p       *C.TsWatcher
	cleanup runtime.Cleanup
}

// Watch starts watching key of g, or every key of g when all: on an
// embedded store no event after it returns is missed. A bad key, an
// election or a closed store is its error.
func (g *Group) Watch(key string, all bool) (*Watcher, error) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if g.p == nil {
		return nil, g.closedError()
	}
	var p *C.TsWatcher
	var e C.TsError
	ptr, n := text(key)
	ok := C.ts_group_watch(g.p, ptr, n, C.bool(all), &p, &e)
	runtime.KeepAlive(key)
	runtime.KeepAlive(g)
	if !ok {
		return nil, failure(&e)
	}
	w := &Watcher{p: p}
	w.cleanup = runtime.AddCleanup(w, func(p *C.TsWatcher) { C.ts_watcher_free(p) }, p)
	return w, nil
}

// Next blocks until the next event and more true; more false once the
// watch ended (closed, or after the one error that ends it: closed,
// unavailable).
func (w *Watcher) Next() (event WatchEvent, more bool, err error) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	if w.p == nil {
		return WatchEvent{}, false, nil
	}
	var ev C.TsWatchEvent
	var m C.bool
	var e C.TsError
	ok := C.ts_watcher_next(w.p, &ev, &m, &e)
	runtime.KeepAlive(w)
	if !ok {
		return WatchEvent{}, false, failure(&e)
	}
	return eventOf(&ev), bool(m), nil
}

// Close stops watching: a Next under way, and every later one, returns
// more false. Idempotent; safe beside a Next.
func (w *Watcher) Close() {
	w.mu.RLock()
	defer w.mu.RUnlock()
	if w.p != nil {
		C.ts_watcher_close(w.p)
		runtime.KeepAlive(w)
	}
}

// Free closes the watcher and frees its handle, once a Next under way
// returned. Idempotent.
func (w *Watcher) Free() {
	w.Close()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.p == nil {
		return
	}
	w.cleanup.Stop()
	C.ts_watcher_free(w.p)
	w.p = nil
}
