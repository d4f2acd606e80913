package guardio

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"

	"tinystore.dev/go/internal/native"
	"tinystore.dev/go/locks"
)

type stateErr string

func (e stateErr) Error() string    { return "pg: " + string(e) }
func (e stateErr) SQLState() string { return string(e) }

type answered struct{ status int }

func (a answered) Error() string       { return fmt.Sprintf("answered %d", a.status) }
func (a answered) HTTPStatusCode() int { return a.status }
func (a answered) ErrorCode() string   { return "AccessDenied" }

// What a driver reports is read through its methods and types, wrapped
// or not; the core classifies it.
func TestDescribeReadsWhatTheDriverReportsAndTheCoreClassifies(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	for _, c := range []struct {
		err   error
		code  string
		class native.DriverClass
	}{
		{fmt.Errorf("wrapped: %w", stateErr("40001")), "", native.ClassSerialization},
		{stateErr("42P01"), "", native.ClassMissingTable},
		{answered{403}, "AccessDenied", native.ClassPermission},
		{refused, "ECONNREFUSED", native.ClassUnavailable},
		{fmt.Errorf("query: %w", driver.ErrBadConn), "connection", native.ClassUnavailable},
		{io.ErrUnexpectedEOF, "connection", native.ClassUnavailable},
		{context.DeadlineExceeded, "", native.ClassOther},
		{errors.New("no such table: tinystore_fences"), "", native.ClassMissingTable},
	} {
		f := Describe(c.err)
		got := ""
		if f.ErrorCode != nil {
			got = *f.ErrorCode
		}
		class, made, err := native.Classify(f, "doing")
		if got != c.code || err != nil || class != c.class || made == nil || f.Message != c.err.Error() {
			t.Errorf("%v: error code %q, class %v (%v); want %q, %v", c.err, got, class, err, c.code, c.class)
		}
	}
}

// A verdict becomes Go's error: the driver's wrapped with the core's
// code, the stale error with its three.
func TestOutcomeWrapsTheDriversErrorAndBuildsStale(t *testing.T) {
	cause := stateErr("40001")
	err := Outcome(native.Verdict{Kind: native.VerdictDriver, Err: &locks.Error{Code: locks.CodeIO, Message: "m"}}, cause)
	var state stateErr
	if !errors.Is(err, locks.ErrIO) || !errors.As(err, &state) || !IsSerializationFailure(err) {
		t.Fatalf("%v", err)
	}
	stale := Outcome(native.Verdict{Kind: native.VerdictRefused, Err: &locks.Error{Code: locks.CodeStale, Message: "s"},
		Stale: &native.Stale{Resource: "r", FenceCount: 7, LargestCount: 9}}, nil)
	var s *locks.StaleError
	if !errors.As(stale, &s) || s.Resource != "r" || s.Fence.Count != 7 || s.Largest.Count != 9 || !errors.Is(stale, locks.ErrStale) {
		t.Fatalf("%v", stale)
	}
	if Outcome(native.Verdict{Kind: native.VerdictAccepted}, cause) != nil {
		t.Fatal("an accepted verdict is an error")
	}
}
