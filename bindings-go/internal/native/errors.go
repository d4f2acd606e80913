package native

/*
#include "tinystore.h"
*/
import "C"

import "errors"

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

func codeOf(code C.TsCode) Code {
	switch code {
	case C.TS_CODE_TIMEOUT:
		return CodeTimeout
	case C.TS_CODE_LEASE_LOST:
		return CodeLeaseLost
	case C.TS_CODE_IN_USE:
		return CodeInUse
	case C.TS_CODE_CLOSED:
		return CodeClosed
	case C.TS_CODE_INVALID:
		return CodeInvalid
	case C.TS_CODE_LIMIT:
		return CodeLimit
	case C.TS_CODE_UNAUTHORIZED:
		return CodeUnauthorized
	case C.TS_CODE_CORRUPT:
		return CodeCorrupt
	case C.TS_CODE_IO:
		return CodeIO
	case C.TS_CODE_UNAVAILABLE:
		return CodeUnavailable
	default:
		return CodeInternal
	}
}
