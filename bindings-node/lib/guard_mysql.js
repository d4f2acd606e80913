'use strict'
// The SQL guard on a mysql2 connection (MySQL 8, MariaDB 10.5 and later):
// the core's machine in the "mysql" dialect, whose statements this file
// runs on the connection as prepared statements (`execute`), reporting the
// rows changed as mysql2 counts them (`affectedRows`, with or without found
// rows: the core reads the row unless 2 prove acceptance), the row read
// (as mysql2 gives it by default, whatever the connection's options for
// rows) or mysql2's error. mysql2 is not imported: a connection is told by
// its shape, and whether it is in a transaction by the status flags mysql2
// keeps of the server's last reply.
const { mysqlFailureOf, concluded } = require('./guard_driver')
const { after, release } = require('./guard_sql')

/**
 * @typedef {{
 *   execute(options: { sql: string, values: unknown[], rowsAsArray: boolean, nestTables: boolean, typeCast: (field: unknown, next: () => unknown) => unknown }, callback: (err: unknown, result: unknown) => void): unknown,
 *   query(sql: string, callback: (err: unknown) => void): unknown,
 *   serverStatus: number,
 *   authorized?: boolean,
 * }} MysqlConnection mysql2's own (callback) connection, which its promise connections wrap
 * @typedef {import('./guard_sql').SqlStep} SqlStep
 */

/** The server's status flags of the last OK or EOF packet: a transaction is open; autocommit is on. */
const SERVER_STATUS_IN_TRANS = 0x0001
const SERVER_STATUS_AUTOCOMMIT = 0x0002

/**
 * The mysql2 connection `handle` is or wraps: a callback Connection or
 * PoolConnection itself, a `mysql2/promise` one's `connection`; else
 * undefined.
 * @param {Record<string, unknown>} handle
 * @returns {MysqlConnection | undefined}
 */
function mysqlConnectionOf(handle) {
  if (typeof handle.execute !== 'function') return undefined
  const own = typeof handle.serverStatus === 'number' ? handle : handle.connection
  if (own === null || typeof own !== 'object') return undefined
  const c = /** @type {Record<string, unknown>} */ (own)
  const shaped = typeof c.execute === 'function' && typeof c.query === 'function' && typeof c.serverStatus === 'number'
  return shaped ? /** @type {MysqlConnection} */ (own) : undefined
}

/**
 * Whether a statement on `conn` runs in a transaction: the server last
 * reported one open, or autocommit is off (then the check's own statement
 * opens one, which the caller commits). A connection whose handshake has
 * not ended (a callback connection just made) has had no report: its
 * status of 0 would read as autocommit off, so it is outside a transaction.
 * @param {MysqlConnection} conn
 * @returns {boolean}
 */
function inTransaction(conn) {
  if (conn.authorized === false) return false
  const status = conn.serverStatus
  return (status & SERVER_STATUS_IN_TRANS) !== 0 || (status & SERVER_STATUS_AUTOCOMMIT) === 0
}

/**
 * mysql2's own conversion of a column, whatever the connection's
 * `typeCast` (a connection's function wins over a statement's `true`, not
 * over a statement's function).
 * @param {unknown} _field
 * @param {() => unknown} next
 */
const defaultCast = (_field, next) => next()

/**
 * Runs `sql` with `values` as a prepared statement on `conn`, its rows as
 * arrays of mysql2's usual values whatever the connection's options (its
 * `nestTables` would nest a row's values by table, its `typeCast` might
 * make the fence's text something else; a statement's options win).
 * @param {MysqlConnection} conn
 * @param {string} sql
 * @param {string[]} values
 * @returns {Promise<unknown>}
 */
function execute(conn, sql, values) {
  return new Promise((resolve, reject) => {
    const options = { sql, values, rowsAsArray: true, nestTables: false, typeCast: defaultCast }
    conn.execute(options, (err, result) => (err ? reject(err) : resolve(result)))
  })
}

/**
 * Takes the check's steps on a mysql2 connection.
 * @param {MysqlConnection} conn
 * @param {number} slot
 * @param {SqlStep} step
 * @returns {Promise<void>}
 */
async function checkMysql(conn, slot, step) {
  let error
  let didFail = false
  try {
    while (step.kind !== 'done') {
      let result
      didFail = false
      try {
        result = await execute(conn, step.sql, step.params)
      } catch (err) {
        ;[error, didFail] = [err, true]
      }
      if (didFail) {
        step = after(slot, step, { failure: mysqlFailureOf(error) })
      } else if (step.kind === 'execute') {
        const changes = /** @type {{ affectedRows?: unknown }} */ (result)?.affectedRows
        step = after(slot, step, { changes: typeof changes === 'number' ? changes : 0 })
      } else {
        const first = Array.isArray(result) ? result[0] : undefined
        const value = Array.isArray(first) ? first[0] : undefined
        step = after(slot, step, { row: value === undefined || value === null ? undefined : String(value) })
      }
    }
  } finally {
    release(slot)
  }
  concluded(step, error, didFail)
}

/**
 * Runs the migration `sql` on `conn` (DDL: MySQL commits any open
 * transaction first).
 * @param {MysqlConnection} conn
 * @param {string} sql
 * @returns {Promise<void>}
 */
function ensureMysql(conn, sql) {
  return new Promise((resolve, reject) => {
    conn.query(sql, err => (err ? reject(err) : resolve()))
  })
}

module.exports = { mysqlConnectionOf, inTransaction, checkMysql, ensureMysql }
