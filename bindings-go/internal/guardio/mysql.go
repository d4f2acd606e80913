package guardio

import (
	"reflect"
	"strconv"
)

// mysqlError is what a MySQL or MariaDB server reported through
// github.com/go-sql-driver/mysql's *mysql.MySQLError, found anywhere in
// err's chain: its error number in decimal (such as "1146") and its
// SQLSTATE ("" when the server sent none).
//
// That type has fields and no methods (Number uint16, SQLState [5]byte,
// Message string), so it is read by its shape, through reflection: a
// struct, or a pointer to one, with an unsigned integer Number, a [5]byte
// SQLState and a string Message. This keeps tinystore.dev/go free of the
// driver, which a user of SQLite or PostgreSQL does not need. A driver
// version that renamed those fields would be read as one that reports
// only its text (class other: io).
func mysqlError(err error) (number, state string, ok bool) {
	visit(err, func(e error) bool {
		number, state, ok = mysqlShape(e)
		return ok
	})
	return number, state, ok
}

// mysqlShape reads e when it has the shape of *mysql.MySQLError.
func mysqlShape(e error) (number, state string, ok bool) {
	v := reflect.ValueOf(e)
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return "", "", false
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return "", "", false
	}
	n, s, m := v.FieldByName("Number"), v.FieldByName("SQLState"), v.FieldByName("Message")
	if !n.IsValid() || !s.IsValid() || !m.IsValid() || !n.CanUint() || m.Kind() != reflect.String ||
		s.Kind() != reflect.Array || s.Len() != 5 || s.Type().Elem().Kind() != reflect.Uint8 {
		return "", "", false
	}
	var sqlstate [5]byte
	for i := range sqlstate {
		sqlstate[i] = byte(s.Index(i).Uint())
	}
	if sqlstate != [5]byte{} {
		state = string(sqlstate[:])
	}
	return strconv.FormatUint(n.Uint(), 10), state, true
}

// mysqlInvalidConn is the text of go-sql-driver's mysql.ErrInvalidConn,
// the error it returns when its connection broke in the middle of a
// statement (a killed connection, a server gone): made by errors.New, it
// has no type to tell it by, so an error of exactly this text that wraps
// nothing is taken as a lost connection.
const mysqlInvalidConn = "invalid connection"

// visit calls found on err and on every error it wraps (Unwrap() error
// and Unwrap() []error), depth first, until found says true; it tells
// whether one did.
func visit(err error, found func(error) bool) bool {
	for err != nil {
		if found(err) {
			return true
		}
		switch u := err.(type) {
		case interface{ Unwrap() []error }:
			for _, inner := range u.Unwrap() {
				if visit(inner, found) {
					return true
				}
			}
			return false
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		default:
			return false
		}
	}
	return false
}

// lostMySQLConnection tells whether err is, or wraps, go-sql-driver's
// mysql.ErrInvalidConn.
func lostMySQLConnection(err error) bool {
	return visit(err, func(e error) bool {
		_, wraps := e.(interface{ Unwrap() error })
		_, wrapsMany := e.(interface{ Unwrap() []error })
		return !wraps && !wrapsMany && e.Error() == mysqlInvalidConn
	})
}
