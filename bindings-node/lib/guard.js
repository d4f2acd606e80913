'use strict'
// The SQL guard on the handles users already have: a better-sqlite3
// Database (sync), a pg Client / PoolClient or a mysql2 Connection /
// PoolConnection, promise or callback (async). The check is the core's
// machine (src/guard_sql.rs, through lib/guard_sql.js): it gives each
// statement, this file (lib/guard_mysql.js for mysql2) runs it on the
// handle and reports the rows changed, the row read or the driver's error;
// the machine decides. Its end follows the one policy of
// lib/guard_driver.js. No driver is imported: the handle is told apart by
// its shape (`prepare` and `inTransaction`; `execute` and `serverStatus`,
// or a `connection` that has them; or `query`), so all stay optional peer
// dependencies.
const native = require('./native')
const { describe } = require('./convert')
const { InvalidError, mappedSync } = require('./errors')
const { text, fenceOf, underOf } = require('./guard_input')
const { failureOf, pgFailureOf, isSerializationFailure, concluded } = require('./guard_driver')
const { begin, release, after } = require('./guard_sql')
const { mysqlConnectionOf, inTransaction, checkMysql, ensureMysql } = require('./guard_mysql')
const { s3 } = require('./s3')
const { redis } = require('./redis')
const { dynamodb } = require('./dynamodb')
const { gcs } = require('./gcs')
const { azure } = require('./azure')
const otel = require('./otel')

/**
 * @typedef {{ run(...params: unknown[]): { changes: number }, get(...params: unknown[]): unknown, pluck(on?: boolean): SqliteStatement }} SqliteStatement
 * @typedef {{ prepare(source: string): SqliteStatement, exec(source: string): unknown, readonly inTransaction: boolean }} SqliteHandle
 * @typedef {{ query(text: string, values?: unknown[]): Promise<{ rowCount: number | null, rows: any[] }>, getTransactionStatus?: () => string | null }} PgHandle
 * @typedef {import('./guard_sql').SqlStep} SqlStep
 * @typedef {import('./guard_mysql').MysqlConnection} MysqlConnection
 */

/**
 * Which driver `handle` is of, or an InvalidError naming what it is.
 * @param {unknown} handle
 * @param {string} where
 * @returns {{ sqlite: SqliteHandle } | { pg: PgHandle } | { mysql: MysqlConnection }}
 */
function kindOf(handle, where) {
  if (handle !== null && typeof handle === 'object') {
    const h = /** @type {Record<string, unknown>} */ (handle)
    if (typeof h.prepare === 'function' && typeof h.inTransaction === 'boolean') {
      return { sqlite: /** @type {SqliteHandle} */ (handle) }
    }
    // A mysql2 Pool, like pg's, runs each statement on whichever
    // connection is free.
    if (typeof h.getConnection === 'function' && typeof h.execute === 'function') {
      throw new InvalidError(
        `${where} takes a connection of the pool (await pool.getConnection()) inside its transaction, not the mysql2 Pool itself`,
      )
    }
    const mysql = mysqlConnectionOf(h)
    if (mysql) return { mysql }
    if (typeof h.query === 'function') {
      // A pg Pool runs each query on whichever client is free: no
      // transaction can span two of its queries.
      if (typeof h.connect === 'function' && typeof h.totalCount === 'number') {
        throw new InvalidError(
          `${where} takes a client of the pool (await pool.connect()) inside its transaction, not the pg Pool itself`,
        )
      }
      return { pg: /** @type {PgHandle} */ (handle) }
    }
  }
  throw new InvalidError(
    `${where} takes a better-sqlite3 Database or a pg Client or PoolClient or a mysql2 Connection or PoolConnection, not ${describe(handle)}`,
  )
}

/**
 * A column's value as the text the machine reads (null: no row).
 * @param {unknown} value
 * @returns {string | undefined}
 */
const textOf = value => (value === undefined || value === null ? undefined : String(value))

/** @type {WeakMap<object, SqliteStatement[]>} */
const preparedOf = new WeakMap()

/**
 * The statement of `step` prepared on `db`, once per handle.
 * @param {SqliteHandle} db
 * @param {{ statement: number, sql: string }} step
 */
function prepared(db, step) {
  let statements = preparedOf.get(db)
  if (!statements) preparedOf.set(db, (statements = []))
  return statements[step.statement] ?? (statements[step.statement] = db.prepare(step.sql))
}

/**
 * Takes the check's steps on a better-sqlite3 handle.
 * @param {SqliteHandle} db
 * @param {number} slot
 * @param {SqlStep} step
 * @returns {void}
 */
function checkSqlite(db, slot, step) {
  let error
  let didFail = false
  try {
    while (step.kind !== 'done') {
      let changes = 0
      let row
      didFail = false
      try {
        if (step.kind === 'execute') changes = prepared(db, step).run(...step.params).changes
        else row = textOf(prepared(db, step).pluck(true).get(...step.params))
      } catch (err) {
        ;[error, didFail] = [err, true]
      }
      step = after(slot, step, didFail ? { failure: failureOf(error) } : { changes, row })
    }
  } finally {
    release(slot)
  }
  concluded(step, error, didFail)
}

/**
 * Takes the check's steps on a pg client.
 * @param {PgHandle} client
 * @param {number} slot
 * @param {SqlStep} step
 * @returns {Promise<void>}
 */
async function checkPg(client, slot, step) {
  let error
  let didFail = false
  try {
    while (step.kind !== 'done') {
      let result
      didFail = false
      try {
        result = await client.query(step.sql, step.params)
      } catch (err) {
        ;[error, didFail] = [err, true]
      }
      const first = result?.rows[0]
      const row = textOf(first === undefined ? undefined : Object.values(first)[0])
      step = after(slot, step, didFail ? { failure: pgFailureOf(error) } : { changes: result?.rowCount ?? 0, row })
    }
  } finally {
    release(slot)
  }
  concluded(step, error, didFail)
}

/**
 * Checks `fence` (a bigint, or a Lease whose store is told of a refusal)
 * against the largest recorded for `resource` and records it, inside the
 * caller's open transaction on `handle`. See index.d.ts.
 * @param {unknown} handle
 * @param {unknown} resource
 * @param {unknown} fence
 * @returns {void | Promise<void>}
 */
function check(handle, resource, fence) {
  const under = underOf(fence, 'guard.check')
  // OpenTelemetry's span and refused counter (lib/otel.js): only the run when off
  return otel.checked(String(resource), under.fence, () => backendOf(handle), () =>
    under.telling(/** @type {string} */ (resource), () => checkFence(handle, resource, under.fence)),
  )
}

/** The guard's backend for OpenTelemetry: sqlite, mysql or postgres. @param {unknown} handle */
function backendOf(handle) {
  try {
    const kind = kindOf(handle, 'guard.check')
    return 'sqlite' in kind ? 'sqlite' : 'mysql' in kind ? 'mysql' : 'postgres'
  } catch {
    return 'unknown'
  }
}

/**
 * `check` with the fence itself.
 * @param {unknown} handle
 * @param {unknown} resource
 * @param {bigint} fence
 * @returns {void | Promise<void>}
 */
function checkFence(handle, resource, fence) {
  const kind = kindOf(handle, 'guard.check')
  if ('sqlite' in kind) {
    const db = kind.sqlite
    const { slot, step } = begin('sqlite', text(resource, 'resource', 'guard.check'), fenceOf(fence, 'guard.check'), db.inTransaction)
    return checkSqlite(db, slot, step)
  }
  if ('mysql' in kind) {
    // mysql2 keeps the status flags the server last reported: a
    // transaction open, or autocommit off (see lib/guard_mysql.js).
    const conn = kind.mysql
    try {
      const { slot, step } = begin('mysql', text(resource, 'resource', 'guard.check'), fenceOf(fence, 'guard.check'), inTransaction(conn))
      return checkMysql(conn, slot, step)
    } catch (err) {
      return Promise.reject(err)
    }
  }
  // pg knows the status the server last reported: 'I' is idle, outside a
  // transaction (await the BEGIN before the check).
  const pg = kind.pg
  const status = typeof pg.getTransactionStatus === 'function' ? pg.getTransactionStatus() : undefined
  try {
    const { slot, step } = begin('postgres', text(resource, 'resource', 'guard.check'), fenceOf(fence, 'guard.check'), status !== 'I')
    return checkPg(pg, slot, step)
  } catch (err) {
    return Promise.reject(err)
  }
}

/**
 * Makes the register table tinystore_fences if it is missing.
 * @param {unknown} handle
 * @returns {void | Promise<void>}
 */
function ensure(handle) {
  const kind = kindOf(handle, 'guard.ensure')
  if ('sqlite' in kind) {
    kind.sqlite.exec(migration('sqlite'))
    return
  }
  if ('mysql' in kind) return ensureMysql(kind.mysql, migration('mysql'))
  return kind.pg.query(migration('postgres')).then(() => undefined)
}

/**
 * The migration that makes tinystore_fences, for "sqlite", "postgres" or
 * "mysql" (MySQL and MariaDB).
 * @param {unknown} dialect
 * @returns {string}
 */
function migration(dialect) {
  if (typeof dialect !== 'string') throw new InvalidError(`guard dialect must be "sqlite", "postgres" or "mysql", not ${describe(dialect)}`)
  return mappedSync(() => native.guardMigration(dialect))
}

const guard = Object.freeze({ check, ensure, migration, isSerializationFailure, s3, redis, dynamodb, gcs, azure })

module.exports = { guard }
