package native

/*
#include "tinystore.h"
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// Code is one of tinystore's error codes, spelled as on the wire. A Code
// is itself an error: the sentinel that errors.Is matches every *Error of
// that code against.
type Code string

// The error codes, the same on the wire and in every language.
const (
	CodeTimeout      Code = "timeout"
	CodeLeaseLost    Code = "lease_lost"
	CodeInUse        Code = "in_use"
	CodeClosed       Code = "closed"
	CodeInvalid      Code = "invalid"
	CodeLimit        Code = "limit"
	CodeUnauthorized Code = "unauthorized"
	CodeCorrupt      Code = "corrupt"
	CodeIO           Code = "io"
	CodeUnavailable  Code = "unavailable"
	CodeInternal     Code = "internal"
	CodeStale        Code = "stale"
)

// Error makes a Code the sentinel of its errors.
func (c Code) Error() string { return "tinystore: " + string(c) }

// Error is a tinystore error: a code and a message that names what it is
// about (the directory, the name and key, the limit and the value).
type Error struct {
	Code    Code
	Message string
}

// Error is "code: message".
func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// Unwrap gives the code, so errors.Is(err, ErrTimeout) holds for a timeout.
func (e *Error) Unwrap() error { return e.Code }

// Invalid is an `invalid` error with this message.
func Invalid(message string) error { return &Error{Code: CodeInvalid, Message: message} }

// codeName is the Code the core names number (ts_code_name); ok is false
// for a number that is no code of the library's.
func codeName(number C.uint32_t) (c Code, ok bool) {
	var n C.size_t
	p := C.ts_code_name(number, &n)
	if p == nil {
		return CodeInternal, false
	}
	return Code(C.GoStringN((*C.char)(unsafe.Pointer(p)), C.int(n))), true
}

// errorOf is the Error of a C code and message: the code by the core's
// name for its number, so a code this package has no constant for still
// keeps its own name; a number the library does not know is an internal
// error that names it.
func errorOf(code C.TsCode, message string) *Error {
	c, ok := codeName(C.uint32_t(code))
	if !ok {
		message = fmt.Sprintf("error code %d is not known to the tinystore library: %s", int(code), message)
	}
	return &Error{Code: c, Message: message}
}

// CodeName is codeName for a number, for the tests.
func CodeName(number uint32) (Code, bool) { return codeName(C.uint32_t(number)) }

// CoreCode is one code of the core's table: its Code, its number in the
// C ABI, and the name Go gives it (CodeX and ErrX for X).
type CoreCode struct {
	Code   Code
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

// fromC turns an error a C call filled into a Go error, freeing its
// message.
func fromC(e *C.TsError) *Error {
	code := e.code
	message := C.GoString(e.message)
	C.ts_error_clear(e)
	return errorOf(C.TsCode(code), message)
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
	return fromC(&e)
}
