package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"

	"github.com/go-sql-driver/mysql"

	"tinystore.dev/go/guard"
)

// mysqlDB is the mysql backend: the MariaDB at $TINYSTORE_MYSQL_URL
// (mysql://USER@HOST:PORT/DB) through go-sql-driver's database/sql
// driver, a database of its own per scenario.
type mysqlDB struct {
	sqlDB
	user, host, database string
}

func openMySQL(ctx context.Context, resource string) (*mysqlDB, error) {
	raw := os.Getenv("TINYSTORE_MYSQL_URL")
	if raw == "" {
		return nil, errors.New("TINYSTORE_MYSQL_URL is unset: run under tests/guards/with-mariadb.sh")
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "mysql" {
		return nil, fmt.Errorf("TINYSTORE_MYSQL_URL %q is not a mysql:// URL", raw)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	m := &mysqlDB{user: u.User.String(), host: u.Host, database: "matrix_go_" + hex.EncodeToString(b[:])}
	m.sqlDB = sqlDB{dialect: guard.MySQL, resource: resource}
	if err := m.admin(ctx, "create database "+m.database); err != nil {
		return nil, err
	}
	if m.db, err = sql.Open("mysql", m.dsn(m.user)); err != nil {
		m.close()
		return nil, err
	}
	if err := m.setUp(ctx); err != nil {
		m.close()
		return nil, err
	}
	return m, nil
}

// dsn is go-sql-driver's name for the scenario's database, logged in as
// user.
func (m *mysqlDB) dsn(user string) string {
	return user + "@tcp(" + m.host + ")/" + m.database
}

// admin runs statements on a connection of its own, in no database.
func (m *mysqlDB) admin(ctx context.Context, statements ...string) error {
	db, err := sql.Open("mysql", m.user+"@tcp("+m.host+")/")
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }()
	for _, s := range statements {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

func (m *mysqlDB) close() {
	if m.db != nil {
		_ = m.db.Close()
	}
	_ = m.admin(context.Background(), "drop database if exists "+m.database)
}

// driverError tells go-sql-driver's own error of the kind: by its error
// number (*mysql.MySQLError), or the connection it lost.
func (m *mysqlDB) driverError(kind string, err error) bool {
	var e *mysql.MySQLError
	numbered := errors.As(err, &e)
	switch kind {
	case "serialization":
		return numbered && (e.Number == 1020 || e.Number == 1213 || e.Number == 1205)
	case "permission":
		return numbered && e.Number == 1142
	case "unavailable": // the server ended the connection, or it is gone
		return numbered && (e.Number == 1927 || e.Number == 2006 || e.Number == 2013) ||
			errors.Is(err, mysql.ErrInvalidConn) || errors.Is(err, driver.ErrBadConn)
	}
	return false
}

func (m *mysqlDB) steps(judge judgeFunc) map[string]stepFunc {
	steps := m.sqlSteps(judge)
	// A at REPEATABLE READ under innodb_snapshot_isolation=ON takes its
	// snapshot; B writes and commits; A's check fails with error 1020.
	steps["serialization"] = func(ctx context.Context, a args, st step) error {
		f, between, err := fences(a)
		if err != nil {
			return err
		}
		conn, err := m.db.Conn(ctx)
		if err != nil {
			return err
		}
		defer func() { _ = conn.Close() }()
		if _, err := conn.ExecContext(ctx, "set session innodb_snapshot_isolation = ON"); err != nil {
			return err
		}
		tx, err := conn.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead})
		if err != nil {
			return err
		}
		defer func() { _ = tx.Rollback() }()
		rows, err := tx.QueryContext(ctx, "select * from tinystore_fences")
		if err != nil {
			return err
		}
		_ = rows.Close()
		if err := judge(accepted, m.write(ctx, between, nil, m.resource), between); err != nil {
			return err
		}
		return judge(st.expect("expect"), guard.Check(ctx, tx, m.dialect, m.resource, f), f)
	}
	// The write made on a connection logged in as a user that may only
	// read the register.
	steps["permission"] = func(ctx context.Context, a args, st step) error {
		f, err := parse(a.Fence)
		if err != nil {
			return err
		}
		// Made once per server: another runner may have made it already.
		const account = "'" + reader + "'@'127.0.0.1'"
		err = m.admin(ctx, "create user if not exists "+account,
			"grant select on "+m.database+".tinystore_fences to "+account)
		if err != nil {
			return err
		}
		db, err := sql.Open("mysql", m.dsn(reader))
		if err != nil {
			return err
		}
		defer func() { _ = db.Close() }()
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer func() { _ = tx.Rollback() }()
		return judge(st.expect("expect"), guard.Check(ctx, tx, m.dialect, m.resource, f), f)
	}
	// After BEGIN, the connection is ended by KILL from another; then the
	// check.
	steps["server_gone"] = func(ctx context.Context, a args, st step) error {
		f, err := parse(a.Fence)
		if err != nil {
			return err
		}
		tx, err := m.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer func() { _ = tx.Rollback() }()
		var id int64
		if err := tx.QueryRowContext(ctx, "select connection_id()").Scan(&id); err != nil {
			return err
		}
		if err := m.admin(ctx, fmt.Sprintf("kill %d", id)); err != nil {
			return err
		}
		if err := judge(st.expect("expect"), guard.Check(ctx, tx, m.dialect, m.resource, f), f); err != nil {
			return err
		}
		if got, _, err := m.recorded(ctx); err != nil || got != nil {
			return fmt.Errorf("after the connection was gone the register holds %v (%v)", got, err)
		}
		return nil
	}
	return steps
}
