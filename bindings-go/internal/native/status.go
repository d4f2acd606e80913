package native

/*
#include "tinystore.h"
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// Status is the status of the store s as the core's JSON text (the shape
// `tinystore status --json` prints): the limit held leases and keys with
// waiters after the first offset of each. On a connected store it waits
// for the reply in C.
func (s *Store) Status(offset, limit int) ([]byte, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.p == nil {
		return nil, s.closedError()
	}
	var out C.TsStatus
	var e C.TsError
	ok := C.ts_store_status(s.p, C.size_t(offset), C.size_t(limit), &out, &e)
	runtime.KeepAlive(s)
	if !ok {
		return nil, failure(&e)
	}
	defer C.ts_status_clear(&out)
	return C.GoBytes(unsafe.Pointer(out.json), C.int(out.len)), nil
}
