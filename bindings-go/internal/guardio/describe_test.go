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

// mysqlShaped has the shape of go-sql-driver's *mysql.MySQLError, which
// this module does not import (tests/guards/go/guardmysql runs the real
// driver against a real MariaDB).
type mysqlShaped struct {
	Number   uint16
	SQLState [5]byte
	Message  string
}

func (e *mysqlShaped) Error() string {
	return fmt.Sprintf("Error %d (%s): %s", e.Number, e.SQLState, e.Message)
}

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
		{&mysqlShaped{1146, [5]byte{'4', '2', 'S', '0', '2'}, "Table 'app.tinystore_fences' doesn't exist"}, "1146", native.ClassMissingTable},
		{fmt.Errorf("exec: %w", &mysqlShaped{1213, [5]byte{'4', '0', '0', '0', '1'}, "Deadlock found"}), "1213", native.ClassSerialization},
		{&mysqlShaped{1020, [5]byte{'H', 'Y', '0', '0', '0'}, "Record has changed since last read"}, "1020", native.ClassSerialization},
		{&mysqlShaped{1142, [5]byte{'4', '2', '0', '0', '0'}, "INSERT command denied"}, "1142", native.ClassPermission},
		{&mysqlShaped{Number: 1927, Message: "Connection was killed"}, "1927", native.ClassUnavailable},
		{errors.New("invalid connection"), "connection", native.ClassUnavailable},
		{fmt.Errorf("commit: %w", errors.New("invalid connection")), "connection", native.ClassUnavailable},
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
	err := Outcome(native.Verdict{Kind: native.VerdictDriver, Err: &native.CoreError{Code: "io", Message: "m"}}, cause)
	var state stateErr
	if !errors.Is(err, locks.ErrIO) || !errors.As(err, &state) || !IsSerializationFailure(err) {
		t.Fatalf("%v", err)
	}
	stale := Outcome(native.Verdict{Kind: native.VerdictRefused, Err: &native.CoreError{Code: "stale", Message: "s"},
		Stale: &native.Stale{Resource: "r", FenceCount: 7, LargestCount: 9}}, nil)
	var s *locks.StaleError
	if !errors.As(stale, &s) || s.Resource != "r" || s.Fence.Count != 7 || s.Largest.Count != 9 || !errors.Is(stale, locks.ErrStale) {
		t.Fatalf("%v", stale)
	}
	if Outcome(native.Verdict{Kind: native.VerdictAccepted}, cause) != nil {
		t.Fatal("an accepted verdict is an error")
	}
}

// A MySQL error's SQLSTATE is the server's; one the server did not send
// (five zero bytes) is none.
func TestAMySQLErrorGivesItsStateAndNumber(t *testing.T) {
	f := Describe(fmt.Errorf("wrapped: %w", &mysqlShaped{1146, [5]byte{'4', '2', 'S', '0', '2'}, "gone"}))
	if f.SQLState == nil || *f.SQLState != "42S02" || f.ErrorCode == nil || *f.ErrorCode != "1146" {
		t.Fatalf("%+v", f)
	}
	if f := Describe(&mysqlShaped{Number: 2013, Message: "lost"}); f.SQLState != nil || *f.ErrorCode != "2013" {
		t.Fatalf("%+v", f)
	}
	var none *mysqlShaped
	if _, _, ok := mysqlError(fmt.Errorf("a nil one: %w", none)); ok {
		t.Fatal("a nil *MySQLError was read")
	}
}

// cancelShaped has the shape of aws-sdk-go-v2's
// *types.TransactionCanceledException, which this module does not import
// (bindings-go/dynamoguard's tests read the real SDK's, from a real
// answer).
type cancelShaped struct {
	Message             *string
	CancellationReasons []reasonShaped
}

type reasonShaped struct {
	Code    *string
	Item    map[string]any
	Message *string
}

func (e *cancelShaped) Error() string     { return "TransactionCanceledException: " + *e.Message }
func (e *cancelShaped) ErrorCode() string { return "TransactionCanceledException" }

func reasons(codes ...string) []reasonShaped {
	out := make([]reasonShaped, len(codes))
	for i, c := range codes {
		if c != "" {
			out[i].Code = &codes[i]
		}
	}
	return out
}

// A cancelled DynamoDB transaction's code is its first reason other than
// "None" (a missing code is "None"), so that a conflict is a
// serialization failure; with none, the exception's own code.
func TestACancelledTransactionIsToldByItsFirstReason(t *testing.T) {
	message := "Transaction cancelled"
	for _, c := range []struct {
		reasons []reasonShaped
		code    string
		class   native.DriverClass
	}{
		{reasons("None", "TransactionConflict"), "TransactionConflict", native.ClassSerialization},
		{reasons("", "ConditionalCheckFailed", "TransactionConflict"), "ConditionalCheckFailed", native.ClassOther},
		{reasons("None", "None"), "TransactionCanceledException", native.ClassOther},
		{nil, "TransactionCanceledException", native.ClassOther},
	} {
		err := fmt.Errorf("operation error DynamoDB: TransactWriteItems: %w", &cancelShaped{&message, c.reasons})
		f := Describe(err)
		class, _, failed := native.Classify(f, "doing")
		if f.ErrorCode == nil || *f.ErrorCode != c.code || failed != nil || class != c.class {
			t.Errorf("%v: %+v, class %v; want %q, %v", c.reasons, f, class, c.code, c.class)
		}
		if IsSerializationFailure(err) != (c.class == native.ClassSerialization) {
			t.Errorf("%v: IsSerializationFailure says %v", c.reasons, IsSerializationFailure(err))
		}
	}
}

// googleShaped has the shape of google.golang.org/api's *googleapi.Error,
// and azureShaped of azcore's *azcore.ResponseError, which this module
// does not import (bindings-go/gcsguard's and azureguard's tests read the
// real SDKs' errors, from real answers).
type googleShaped struct {
	Code    int
	Message string
	Body    string
	Errors  []struct{ Reason, Message string }
}

func (e *googleShaped) Error() string { return "googleapi: " + e.Message }

type azureShaped struct {
	ErrorCode   string
	StatusCode  int
	RawResponse *struct{}
}

func (e *azureShaped) Error() string { return "azure: " + e.ErrorCode }

// An answer of GCS or Azure gives its HTTP status and the service's code,
// wrapped or not; the core classifies them.
func TestAGoogleOrAzureAnswerGivesItsStatusAndCode(t *testing.T) {
	forbidden := &googleShaped{Code: 403, Message: "denied"}
	forbidden.Errors = append(forbidden.Errors, struct{ Reason, Message string }{"", ""}, struct{ Reason, Message string }{"forbidden", "no"})
	for _, c := range []struct {
		err    error
		status uint16
		code   string
		class  native.DriverClass
	}{
		{fmt.Errorf("upload: %w", forbidden), 403, "forbidden", native.ClassPermission},
		{&googleShaped{Code: 503, Message: "later"}, 503, "", native.ClassUnavailable},
		{&googleShaped{Code: 412, Message: "conditionNotMet"}, 412, "", native.ClassOther},
		{fmt.Errorf("get: %w", &azureShaped{ErrorCode: "AuthorizationFailure", StatusCode: 403}), 403, "AuthorizationFailure", native.ClassPermission},
		{&azureShaped{ErrorCode: "ServerBusy", StatusCode: 503}, 503, "ServerBusy", native.ClassUnavailable},
		{&azureShaped{StatusCode: 400}, 400, "", native.ClassOther},
	} {
		f := Describe(c.err)
		code := ""
		if f.ErrorCode != nil {
			code = *f.ErrorCode
		}
		class, _, failed := native.Classify(f, "doing")
		if f.HTTPStatus == nil || *f.HTTPStatus != c.status || code != c.code || failed != nil || class != c.class {
			t.Errorf("%v: %+v (code %q), class %v; want %d %q %v", c.err, f, code, class, c.status, c.code, c.class)
		}
	}
	var none *azureShaped
	if _, _, ok := cloudAnswer(fmt.Errorf("a nil one: %w", none)); ok {
		t.Fatal("a nil *ResponseError was read")
	}
}
