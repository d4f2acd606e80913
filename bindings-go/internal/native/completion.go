package native

/*
#include <stdlib.h>
#include "tinystore.h"
*/
import "C"

import (
	"os"
	"sync"
	"unsafe"
)

// A call that waits for a reply does not block its goroutine's thread in
// C: the C side goes on in a task of its runtime and, at the end, queues
// the call's token and result and wakes one descriptor (an eventfd on
// Linux, a pipe on other Unix systems). One goroutine reads it through Go's
// netpoller, drains the queue and hands each result to the goroutine
// waiting for it. A lease's loss comes through the same queue (lost.go).

var (
	// token -> chan error (buffered 1), put by whichever of the waiter and
	// the drain comes first and deleted by the second: only calls that go
	// on in the runtime cost a channel.
	waiters   sync.Map
	doneStart sync.Once
	doneErr   error // why the descriptor could not be made
)

// doneReady starts the drain, once; an error when it cannot run (then no
// call may go on in the runtime).
func doneReady() error {
	doneStart.Do(startDone)
	return doneErr
}

// meet gives the channel of token's end, to the waiter or to the drain,
// whichever comes first; the second takes the entry out of the map.
func meet(token uint64) chan error {
	v, met := waiters.LoadOrStore(token, make(chan error, 1))
	if met {
		waiters.Delete(token)
	}
	return v.(chan error)
}

func startDone() {
	var e C.TsError
	fd := C.ts_done_fd(&e)
	if fd < 0 {
		doneErr = failure(&e)
		return
	}
	go drainDone(os.NewFile(uintptr(fd), "tinystore-done"))
}

// drainDone waits for the descriptor for the rest of the process and hands
// out each ended call's result.
func drainDone(f *os.File) {
	const capacity = 256
	buf := (*C.TsDone)(C.malloc(C.size_t(capacity * unsafe.Sizeof(C.TsDone{}))))
	items := unsafe.Slice(buf, capacity)
	// An eventfd's read takes its whole counter into 8 bytes; a pipe's
	// takes up to 64 of the bytes its wakes wrote, and any left over only
	// wake this loop once more.
	var wakes [64]byte
	for {
		if _, err := f.Read(wakes[:]); err != nil {
			continue // EAGAIN is waited for inside Read; nothing else is expected
		}
		for {
			n := int(C.ts_done_take(buf, capacity))
			for i := range items[:n] {
				d := &items[i]
				if d.kind == C.TS_DONE_KIND_LOST {
					lost(uint64(d.token))
					continue
				}
				var err error
				if !d.ok {
					err = failure(&d.err)
				}
				meet(uint64(d.token)) <- err // buffered: never blocks
			}
			if n < capacity {
				break
			}
		}
	}
}
