// Package native is the Go side of tinystore's C ABI (include/tinystore.h,
// made by cbindgen from ../capi). It converts Go values to C and back, maps
// errors, and keeps each handle's lifetime: an idempotent Close or Free, a
// cleanup as a safety net, runtime.KeepAlive after each call. It keeps no
// Go pointer on the C side.
//
// The Rust library is linked statically from inside the module,
// build/GOOS-GOARCH/libtinystore_capi.a, by one file per platform
// (link_linux_amd64.go): the packaged module carries it; in a checkout of
// the repository `make go-lib` builds it and copies it there.
package native

/*
#cgo CFLAGS: -I${SRCDIR}/../../include
#include "tinystore.h"
*/
import "C"

import (
	"time"
	"unsafe"
)

// text gives a Go string to C as (pointer, length). The C side only reads
// it during the call.
func text(s string) (*C.uint8_t, C.size_t) {
	return (*C.uint8_t)(unsafe.Pointer(unsafe.StringData(s))), C.size_t(len(s))
}

// failure turns a filled TsError into a Go error and frees its message.
func failure(e *C.TsError) error { return fromC(e) }

// Options are a group's or a call's options; a false Has field keeps the
// group's value.
type Options struct {
	HasTTL   bool
	TTL      time.Duration
	HasWait  bool
	Wait     time.Duration
	HasRenew bool
	Renew    bool
	// MaxHold caps how long a lease is kept after its grant.
	HasMaxHold bool
	MaxHold    time.Duration
	// Weight is how many of a semaphore key's places a permit takes.
	HasWeight bool
	Weight    uint32
}

func nanos(d time.Duration) C.uint64_t {
	if d < 0 {
		return 0
	}
	return C.uint64_t(d)
}

func (o Options) c() C.TsOptions {
	return C.TsOptions{
		has_ttl:   C.bool(o.HasTTL),
		ttl_ns:    nanos(o.TTL),
		has_wait:  C.bool(o.HasWait),
		wait_ns:   nanos(o.Wait),
		has_renew: C.bool(o.HasRenew),
		renew:     C.bool(o.Renew),

		has_max_hold: C.bool(o.HasMaxHold),
		max_hold_ns:  nanos(o.MaxHold),
		has_weight:   C.bool(o.HasWeight),
		weight:       C.uint32_t(o.Weight),
	}
}
