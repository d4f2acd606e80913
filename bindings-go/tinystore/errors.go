package tinystore

import "tinystore.dev/go/locks"

// Error is a tinystore error; see locks.Error.
type Error = locks.Error

// StaleError is a guard's refusal; see locks.StaleError.
type StaleError = locks.StaleError

// The sentinels of package locks, for errors.Is on what Open and Close
// return (they are the very same values).
var (
	ErrTimeout      = locks.ErrTimeout
	ErrLeaseLost    = locks.ErrLeaseLost
	ErrInUse        = locks.ErrInUse
	ErrClosed       = locks.ErrClosed
	ErrInvalid      = locks.ErrInvalid
	ErrLimit        = locks.ErrLimit
	ErrUnauthorized = locks.ErrUnauthorized
	ErrCorrupt      = locks.ErrCorrupt
	ErrIO           = locks.ErrIO
	ErrUnavailable  = locks.ErrUnavailable
	ErrInternal     = locks.ErrInternal
	ErrStale        = locks.ErrStale
)
