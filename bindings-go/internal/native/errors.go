package native

/*
#include "tinystore.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"
)

// NewError makes the Go error of a tinystore code (as the core and the
// wire spell it) and its message: every error this package gives is made
// by it. Package locks, which declares the Error and Code users match,
// sets it when it is initialized, to make a *locks.Error; every package
// that calls this one imports locks, so its initialization comes first.
// The default, for this package's own tests, is a plain error.
var NewError = func(code, message string) error { return errors.New(code + ": " + message) }

// CoreError is an error as the core gave it, before NewError made it Go's:
// for the callers that wrap it in an error of their own.
type CoreError struct {
	Code    string
	Message string
}

// Err is the error NewError makes of e.
func (e *CoreError) Err() error { return NewError(e.Code, e.Message) }

// The codes this package gives errors of itself.
const (
	codeInvalid  = "invalid"
	codeInternal = "internal"
)

// Invalid is an `invalid` error with this message.
func Invalid(message string) error { return NewError(codeInvalid, message) }

// codeName is the code the core names number (ts_code_name); ok is false
// for a number that is no code of the library's.
func codeName(number C.uint32_t) (c string, ok bool) {
	var n C.size_t
	p := C.ts_code_name(number, &n)
	if p == nil {
		return codeInternal, false
	}
	return C.GoStringN((*C.char)(unsafe.Pointer(p)), C.int(n)), true
}

// coreErrorOf is the CoreError of a C code and message: the code by the
// core's name for its number, so a code Go has no constant for still
// keeps its own name; a number the library does not know is an internal
// error that names it.
func coreErrorOf(code C.TsCode, message string) *CoreError {
	c, ok := codeName(C.uint32_t(code))
	if !ok {
		message = fmt.Sprintf("error code %d is not known to the tinystore library: %s", int(code), message)
	}
	return &CoreError{Code: c, Message: message}
}

// CodeName is codeName for a number, for the tests.
func CodeName(number uint32) (string, bool) { return codeName(C.uint32_t(number)) }

// CoreCode is one code of the core's table: its name, its number in the
// C ABI, and the name Go gives it (CodeX and ErrX for X).
type CoreCode struct {
	Code   string
	Number uint32
	GoName string
}

// CoreCodes walks the core's table of error codes, in its order: every
// code the library has, for the tests that check each has its constant
// and sentinel here.
func CoreCodes() []CoreCode {
	var all []CoreCode
	for i := 0; ; i++ {
		number := C.ts_code_at(C.size_t(i))
		if number == 0 {
			return all
		}
		code, _ := codeName(number)
		var n C.size_t
		p := C.ts_code_go_name(number, &n)
		all = append(all, CoreCode{Code: code, Number: uint32(number), GoName: C.GoStringN((*C.char)(unsafe.Pointer(p)), C.int(n))})
	}
}

// fromC turns an error a C call filled into a CoreError, freeing its
// message.
func fromC(e *C.TsError) *CoreError {
	code := e.code
	message := C.GoString(e.message)
	C.ts_error_clear(e)
	return coreErrorOf(C.TsCode(code), message)
}

// StoreClosed is the core's closed error of a call on a store handle,
// named what (its directory or address), after Close.
func StoreClosed(what string) error {
	ptr, n := text(what)
	return filled(func(e *C.TsError) { C.ts_error_store_closed(ptr, n, e) })
}

// GroupClosed is the core's closed error of a call on group name after
// its handle was closed.
func GroupClosed(name string) error {
	ptr, n := text(name)
	return filled(func(e *C.TsError) { C.ts_error_group_closed(ptr, n, e) })
}

// Released is the core's lease_lost error of a call on the lease on
// name/key after it was released.
func Released(name, key string) error {
	nptr, nn := text(name)
	kptr, kn := text(key)
	return filled(func(e *C.TsError) { C.ts_error_released(nptr, nn, kptr, kn, e) })
}

// filled is the error a C call that only fills a TsError gives.
func filled(fill func(e *C.TsError)) error {
	var e C.TsError
	fill(&e)
	return fromC(&e).Err()
}
