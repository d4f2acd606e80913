package locks

import "tinystore.dev/go/internal/native"

// Code is an error code of tinystore (docs/locks.md), spelled as on the
// wire. A Code is itself an error: the sentinel of its code, which
// errors.Is matches every *Error of that code against (ErrTimeout is
// CodeTimeout).
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

// Error makes a Code the sentinel of its errors: "tinystore: code".
func (c Code) Error() string { return "tinystore: " + string(c) }

// Error is a tinystore error: its Code and a Message that names what it is
// about (the directory, the name and key, the limit and the value).
// errors.Is(err, ErrTimeout) and the like match it by its code, and
// errors.As(err, &e) with e of type *Error gives the fields.
type Error struct {
	Code    Code
	Message string
}

// Error is "code: message".
func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// Unwrap gives the code, so errors.Is(err, ErrTimeout) holds for a timeout.
func (e *Error) Unwrap() error { return e.Code }

// Every error the Rust library gives reaches Go as an *Error. A code this
// package has no constant for keeps the core's name for it.
func init() {
	native.NewError = func(code, message string) error { return &Error{Code: Code(code), Message: message} }
}

// The sentinels, one per code, for errors.Is.
var (
	// ErrTimeout: a wait ran out (the Wait option) before the key was free.
	ErrTimeout error = CodeTimeout
	// ErrLeaseLost: the lease ran out, was released, or its store or
	// connection went away.
	ErrLeaseLost error = CodeLeaseLost
	// ErrInUse: the store directory is owned by another process that does
	// not serve it.
	ErrInUse error = CodeInUse
	// ErrClosed: the store or connection was closed.
	ErrClosed error = CodeClosed
	// ErrInvalid: a bad name, key, TTL, fence text or argument.
	ErrInvalid error = CodeInvalid
	// ErrLimit: a documented limit was passed.
	ErrLimit error = CodeLimit
	// ErrUnauthorized: a TCP client did not authenticate, or gave a wrong token.
	ErrUnauthorized error = CodeUnauthorized
	// ErrCorrupt: kv.db could not be read as a tinystore database.
	ErrCorrupt error = CodeCorrupt
	// ErrIO: an operating-system I/O error.
	ErrIO error = CodeIO
	// ErrUnavailable: the server could not be reached.
	ErrUnavailable error = CodeUnavailable
	// ErrInternal: a bug or an unexpected state; never the caller's fault.
	ErrInternal error = CodeInternal
	// ErrStale: a guard refused a write: its fence is below the largest
	// one recorded for that resource (a *StaleError carries the three).
	ErrStale error = CodeStale
)

// StaleError is the error of a guard that refused a write (code stale):
// its fence is below the largest one recorded for the resource.
// errors.Is(err, ErrStale) matches it, errors.As(err, &s) with s of type
// *StaleError gives the three, and errors.As to *Error gives its code and
// message.
type StaleError struct {
	// Resource is what the write was for, e.g. "chats/42".
	Resource string
	// Fence is the refused write's fence.
	Fence Fence
	// Largest is the largest fence recorded for Resource, above Fence.
	Largest Fence
	// Message names the three, as the core words it.
	Message string
}

// Error is "stale: message".
func (e *StaleError) Error() string { return string(CodeStale) + ": " + e.Message }

// Unwrap gives the *Error of code stale, so errors.Is(err, ErrStale) holds.
func (e *StaleError) Unwrap() error { return &Error{Code: CodeStale, Message: e.Message} }
