package guardio

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"syscall"

	"tinystore.dev/go/internal/native"
)

// Describe is what a driver's or an SDK's err reports, for the core to
// classify, read through the methods drivers have (no driver imported):
//
//   - SQLState() string: the SQLSTATE (pgx's *pgconn.PgError, lib/pq's
//     *pq.Error);
//   - Code() int: SQLite's result code (modernc.org/sqlite's *sqlite.Error);
//   - HTTPStatusCode() int and ErrorCode() string: an object store's
//     answer (aws-sdk-go-v2's *awshttp.ResponseError and smithy.APIError);
//   - the HTTP status and the service's code of an answer from Google
//     Cloud Storage (*googleapi.Error: its Code and first Errors[].Reason)
//     or Azure Blob Storage (*azcore.ResponseError: its StatusCode and
//     ErrorCode), read by their shapes (cloud.go);
//   - the reasons of a DynamoDB transaction's cancellation, read by their
//     shape (dynamodb.go): the first reason other than "None" is the
//     error code ("TransactionConflict", "ConditionalCheckFailed"), as
//     the core reads the Rust SDK's;
//   - the fields of go-sql-driver's *mysql.MySQLError, read by their shape
//     (mysql.go): its SQLSTATE, and its error number in decimal as the
//     error code ("1146", "1213");
//   - a socket's errno (ECONNREFUSED and the like) by its name, or
//     "connection" for a connection lost without one (driver.ErrBadConn,
//     go-sql-driver's mysql.ErrInvalidConn, io.EOF, a net.Error other
//     than a context's end);
//
// and always its text.
func Describe(err error) native.DriverFailure {
	f := native.DriverFailure{Message: err.Error()}
	var state interface{ SQLState() string }
	if errors.As(err, &state) {
		s := state.SQLState()
		f.SQLState = &s
	} else if _, s, ok := mysqlError(err); ok && s != "" {
		f.SQLState = &s
	}
	var coded interface{ Code() int }
	if errors.As(err, &coded) {
		c := int32(coded.Code())
		f.SQLiteCode = &c
	}
	var answered interface{ HTTPStatusCode() int }
	if errors.As(err, &answered) && answered.HTTPStatusCode() > 0 && answered.HTTPStatusCode() < 1<<16 {
		s := uint16(answered.HTTPStatusCode())
		f.HTTPStatus = &s
	} else if status, _, ok := cloudAnswer(err); ok && status > 0 && status < 1<<16 {
		s := uint16(status)
		f.HTTPStatus = &s
	}
	if code := errorCode(err); code != "" {
		f.ErrorCode = &code
	}
	return f
}

// errorCode is a cancelled DynamoDB transaction's first reason, else a
// service's error code or a MySQL error number, else a socket's errno
// name, else "connection" for a lost connection; "" when err has none.
func errorCode(err error) string {
	if reason, ok := cancellationReason(err); ok {
		return reason
	}
	var api interface{ ErrorCode() string }
	if errors.As(err, &api) && api.ErrorCode() != "" {
		return api.ErrorCode()
	}
	if _, code, ok := cloudAnswer(err); ok && code != "" {
		return code
	}
	if number, _, ok := mysqlError(err); ok {
		return number
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		if name, ok := socketErrnos[errno]; ok {
			return name
		}
	}
	var netErr net.Error
	waited := errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
	if errors.Is(err, driver.ErrBadConn) || lostMySQLConnection(err) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || (errors.As(err, &netErr) && !waited) {
		return "connection"
	}
	return ""
}

// socketErrnos names the errnos of a socket that could not connect or
// lost its connection, as C and every other language spell them.
var socketErrnos = map[syscall.Errno]string{
	syscall.ECONNREFUSED: "ECONNREFUSED",
	syscall.ECONNRESET:   "ECONNRESET",
	syscall.ECONNABORTED: "ECONNABORTED",
	syscall.EPIPE:        "EPIPE",
	syscall.ETIMEDOUT:    "ETIMEDOUT",
	syscall.EHOSTUNREACH: "EHOSTUNREACH",
	syscall.ENETUNREACH:  "ENETUNREACH",
	syscall.ENOTCONN:     "ENOTCONN",
}
