// Package guardmysql holds the tests of tinystore.dev/go/guard's MySQL
// dialect (guard.MySQL) on github.com/go-sql-driver/mysql against a real
// MariaDB (tests/guards/with-mariadb.sh; TINYSTORE_MYSQL_URL). They live
// in tests/guards/go, the module of the guard's test tools, so that the
// driver, which a user of SQLite or PostgreSQL does not need, stays out of
// tinystore.dev/go's go.mod: the guard itself imports no driver and reads
// go-sql-driver's errors by their shape (internal/guardio/mysql.go).
package guardmysql
