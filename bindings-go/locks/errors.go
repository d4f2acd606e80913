package locks

import "tinystore.dev/go/internal/native"

// Error is a tinystore error, a struct { Code Code; Message string } whose
// Message names what it is about (the directory, the name and key, the limit
// and the value). Its Error() is "code: message" and its Unwrap() is its
// Code, so errors.Is(err, ErrTimeout) and the like match it by its code,
// and errors.As(err, &e) with e of type *Error gives the fields.
type Error = native.Error

// Code is an error code of tinystore (docs/locks.md), spelled as on the wire. Each code is
// also the sentinel error of that code (ErrTimeout is CodeTimeout).
type Code = native.Code

// The error codes, the same on the wire and in every language.
const (
	CodeTimeout      = native.CodeTimeout
	CodeLeaseLost    = native.CodeLeaseLost
	CodeInUse        = native.CodeInUse
	CodeClosed       = native.CodeClosed
	CodeInvalid      = native.CodeInvalid
	CodeLimit        = native.CodeLimit
	CodeUnauthorized = native.CodeUnauthorized
	CodeCorrupt      = native.CodeCorrupt
	CodeIO           = native.CodeIO
	CodeUnavailable  = native.CodeUnavailable
	CodeInternal     = native.CodeInternal
)

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
)
