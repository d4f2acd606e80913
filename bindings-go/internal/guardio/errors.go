package guardio

import (
	"tinystore.dev/go/internal/native"
	"tinystore.dev/go/locks"
)

// Outcome is a verdict as Go's error: nil when accepted; a
// *locks.StaleError for a stale refusal; the core's *locks.Error for the
// guard's other refusals (corrupt, invalid, limit, internal); and, when
// the driver's error cause ended the machine (a driver's failure, or a
// missing register table), an *Error that wraps both.
func Outcome(v native.Verdict, cause error) error {
	switch {
	case v.Kind == native.VerdictAccepted:
		return nil
	case v.Err == nil:
		return &locks.Error{Code: locks.CodeInternal, Message: "a guard's machine ended with no verdict"}
	case v.Stale != nil:
		return &locks.StaleError{
			Resource: v.Stale.Resource,
			Fence:    locks.Fence{Epoch: v.Stale.FenceEpoch, Count: v.Stale.FenceCount},
			Largest:  locks.Fence{Epoch: v.Stale.LargestEpoch, Count: v.Stale.LargestCount},
			Message:  v.Err.Message,
		}
	case cause != nil:
		return &Error{Tinystore: errorOf(v.Err), Driver: cause}
	default:
		return errorOf(v.Err)
	}
}

// Error is a guard's error caused by the driver's own: the tinystore
// error the core made of it (for a driver's failure, the code it
// classified it as: io, unavailable, unauthorized; for a missing register
// table, invalid) and the driver's error. errors.Is(err, tinystore.ErrIO)
// and the like match its code; errors.As reaches both the *tinystore.Error
// and the driver's own type.
type Error struct {
	Tinystore *locks.Error
	Driver    error
}

// Error is the tinystore error's "code: message"; the message names what
// was done and holds the driver's text.
func (e *Error) Error() string { return e.Tinystore.Error() }

// Unwrap gives the tinystore error and the driver's.
func (e *Error) Unwrap() []error { return []error{e.Tinystore, e.Driver} }

// DriverError is the core's error of the driver's err while doing (such
// as "making tinystore_fences"), wrapping err: for a driver's error the
// guard meets outside a machine's steps.
func DriverError(doing string, err error) error {
	_, made, failed := native.Classify(Describe(err), doing)
	if failed != nil {
		return failed
	}
	return &Error{Tinystore: errorOf(made), Driver: err}
}

// errorOf is the *locks.Error of the core's error e.
func errorOf(e *native.CoreError) *locks.Error {
	return &locks.Error{Code: locks.Code(e.Code), Message: e.Message}
}

// IsSerializationFailure reports whether err is, or wraps, a driver's
// serialization failure as the core classifies it (SQLSTATE 40001 or
// 40P01, SQLite busy or locked, MySQL's errors 1213, 1205 and 1020): roll
// back and retry the whole transaction.
func IsSerializationFailure(err error) bool {
	if err == nil {
		return false
	}
	class, _, failed := native.Classify(Describe(err), "")
	return failed == nil && class == native.ClassSerialization
}
