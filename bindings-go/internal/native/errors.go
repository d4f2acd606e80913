package native

/*
#include "tinystore.h"
*/
import "C"

import (
	"errors"
	"fmt"
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

// errCancelled says an acquire was given up; callers turn it into the
// context's error.
var errCancelled = errors.New("tinystore: acquire given up")

// codeOf is the Code of a C code; ok is false for a number this package
// does not know (a library newer than the module), which must not pass as
// another code.
func codeOf(code C.TsCode) (c Code, ok bool) {
	switch code {
	case C.TS_CODE_TIMEOUT:
		return CodeTimeout, true
	case C.TS_CODE_LEASE_LOST:
		return CodeLeaseLost, true
	case C.TS_CODE_IN_USE:
		return CodeInUse, true
	case C.TS_CODE_CLOSED:
		return CodeClosed, true
	case C.TS_CODE_INVALID:
		return CodeInvalid, true
	case C.TS_CODE_LIMIT:
		return CodeLimit, true
	case C.TS_CODE_UNAUTHORIZED:
		return CodeUnauthorized, true
	case C.TS_CODE_CORRUPT:
		return CodeCorrupt, true
	case C.TS_CODE_IO:
		return CodeIO, true
	case C.TS_CODE_UNAVAILABLE:
		return CodeUnavailable, true
	case C.TS_CODE_INTERNAL:
		return CodeInternal, true
	case C.TS_CODE_STALE:
		return CodeStale, true
	default:
		return CodeInternal, false
	}
}

// errorOf is the Error of a C code and message: an unknown code is an
// internal error that names its number.
func errorOf(code C.TsCode, message string) *Error {
	c, ok := codeOf(code)
	if !ok {
		message = fmt.Sprintf("error code %d is not known to this Go module (a library newer than it?): %s", int(code), message)
	}
	return &Error{Code: c, Message: message}
}

// CodeOfNumber is codeOf for a number, for the tests: every number the
// header defines, and whether it is known.
func CodeOfNumber(n int) (Code, bool) { return codeOf(C.TsCode(n)) }

// CodeNumbers are the numbers of the header's codes, but OK and CANCELLED.
var CodeNumbers = []int{
	C.TS_CODE_TIMEOUT, C.TS_CODE_LEASE_LOST, C.TS_CODE_IN_USE, C.TS_CODE_CLOSED,
	C.TS_CODE_INVALID, C.TS_CODE_LIMIT, C.TS_CODE_UNAUTHORIZED, C.TS_CODE_CORRUPT,
	C.TS_CODE_IO, C.TS_CODE_UNAVAILABLE, C.TS_CODE_INTERNAL, C.TS_CODE_STALE,
}
