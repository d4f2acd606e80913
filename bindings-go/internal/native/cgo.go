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
	"strconv"
	"time"
	"unsafe"
)

// text gives a Go string to C as (pointer, length). The C side only reads
// it during the call.
func text(s string) (*C.uint8_t, C.size_t) {
	return (*C.uint8_t)(unsafe.Pointer(unsafe.StringData(s))), C.size_t(len(s))
}

// failure turns a filled TsError into a Go error and frees its message.
func failure(e *C.TsError) error { return fromC(e).Err() }

// Options are a group's or a call's options as the C ABI takes them: one
// name=value line each, named as the core names them, a duration in
// nanoseconds. An option not set keeps the group's value; the core checks
// the names and the values.
type Options struct{ lines []byte }

// SetDuration sets the option name to d (a negative d is 0).
func (o *Options) SetDuration(name string, d time.Duration) {
	o.SetCount(name, int64(max(d, 0)))
}

// SetCount sets the option name to n.
func (o *Options) SetCount(name string, n int64) {
	o.lines = append(append(o.lines, name...), '=')
	o.lines = append(strconv.AppendInt(o.lines, n, 10), '\n')
}

// SetBool sets the option name to b.
func (o *Options) SetBool(name string, b bool) {
	o.lines = append(append(o.lines, name...), '=')
	o.lines = append(strconv.AppendBool(o.lines, b), '\n')
}

// SetText sets the option name to text, its bytes as they are but for
// '%', line feed and carriage return, written %25, %0A and %0D (the core
// decodes them, and refuses text that is not UTF-8).
func (o *Options) SetText(name string, text string) {
	o.lines = append(append(o.lines, name...), '=')
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '%', '\n', '\r':
			o.lines = append(o.lines, '%', "0123456789ABCDEF"[c>>4], "0123456789ABCDEF"[c&15])
		default:
			o.lines = append(o.lines, c)
		}
	}
	o.lines = append(o.lines, '\n')
}

// c is the C view of o, valid while o's lines are not changed; the core
// reads it during the call it is passed to.
func (o Options) c() C.TsOptions {
	if len(o.lines) == 0 {
		return C.TsOptions{}
	}
	return C.TsOptions{lines: (*C.uint8_t)(unsafe.Pointer(&o.lines[0])), lines_len: C.size_t(len(o.lines))}
}
