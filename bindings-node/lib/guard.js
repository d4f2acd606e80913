'use strict'
// The SQL guard on the handles users already have: a better-sqlite3
// Database (sync) or a pg Client / PoolClient (async). The check is the
// core's machine (NativeSqlCheck): it gives each statement, this file runs
// it on the handle and reports the rows changed, the row read or the
// driver's error; the machine decides. Its end follows the one policy of
// lib/guard_driver.js. Neither driver is imported: the handle is told apart
// by its shape (`prepare` and `inTransaction`, or `query`), so both stay
// optional peer dependencies.
const native = require('./native')
const { describe } = require('./convert')
const { InvalidError, mappedSync } = require('./errors')
const { text, fenceOf } = require('./guard_input')
const { failureOf, pgFailureOf, isSerializationFailure, concluded } = require('./guard_driver')
const { s3 } = require('./s3')

/**
 * @typedef {import('../native').NativeGuardStep} Step
 * @typedef {import('../native').NativeGuardObserved} Observed
 * @typedef {{ run(...params: unknown[]): { changes: number }, get(...params: unknown[]): unknown, pluck(on?: boolean): SqliteStatement }} SqliteStatement
 * @typedef {{ prepare(source: string): SqliteStatement, exec(source: string): unknown, readonly inTransaction: boolean }} SqliteHandle
 * @typedef {{ query(text: string, values?: unknown[]): Promise<{ rowCount: number | null, rows: any[] }>, getTransactionStatus?: () => string | null }} PgHandle
 */

/**
 * Which driver `handle` is of, or an InvalidError naming what it is.
 * @param {unknown} handle
 * @param {string} where
 * @returns {{ sqlite: SqliteHandle } | { pg: PgHandle }}
 */
function kindOf(handle, where) {
  if (handle !== null && typeof handle === 'object') {
    const h = /** @type {Record<string, unknown>} */ (handle)
    if (typeof h.prepare === 'function' && typeof h.inTransaction === 'boolean') {
      return { sqlite: /** @type {SqliteHandle} */ (handle) }
    }
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
    `${where} takes a better-sqlite3 Database or a pg Client or PoolClient, not ${describe(handle)}`,
  )
}

/**
 * The core's check of `fence` for `resource`, its arguments checked.
 * @param {string} dialect
 * @param {unknown} resource
 * @param {unknown} fence
 * @param {boolean} inTransaction
 * @returns {import('../native').NativeSqlCheck}
 */
function machine(dialect, resource, fence, inTransaction) {
  const name = text(resource, 'resource', 'guard.check')
  const f = fenceOf(fence, 'guard.check')
  return mappedSync(() => new native.NativeSqlCheck(dialect, name, f, inTransaction))
}

/**
 * A column's value as the text the machine reads (null: no row).
 * @param {unknown} value
 * @returns {string | undefined}
 */
const textOf = value => (value === undefined || value === null ? undefined : String(value))

/** @type {WeakMap<object, Map<string, SqliteStatement>>} */
const preparedOf = new WeakMap()

/**
 * `sql` prepared on `db`, once per handle.
 * @param {SqliteHandle} db
 * @param {string} sql
 */
function prepared(db, sql) {
  let statements = preparedOf.get(db)
  if (!statements) preparedOf.set(db, (statements = new Map()))
  let statement = statements.get(sql)
  if (!statement) statements.set(sql, (statement = db.prepare(sql)))
  return statement
}

/**
 * Takes the check's steps on a better-sqlite3 handle.
 * @param {SqliteHandle} db
 * @param {unknown} resource
 * @param {unknown} fence
 * @returns {void}
 */
function checkSqlite(db, resource, fence) {
  const check = machine('sqlite', resource, fence, db.inTransaction)
  let step = check.start()
  let failed
  let didFail = false
  while (step.kind !== 'done') {
    const sql = /** @type {string} */ (step.sql)
    const params = /** @type {string[]} */ (step.params)
    /** @type {Observed} */
    let observed
    didFail = false
    try {
      observed =
        step.kind === 'execute'
          ? { kind: 'changed', changed: prepared(db, sql).run(...params).changes }
          : { kind: 'row', row: textOf(prepared(db, sql).pluck(true).get(...params)) }
    } catch (err) {
      ;[failed, didFail] = [err, true]
      observed = { kind: 'failed', failure: failureOf(err) }
    }
    step = mappedSync(() => check.observe(observed))
  }
  concluded(step, failed, didFail)
}

/**
 * Takes the check's steps on a pg client.
 * @param {PgHandle} client
 * @param {import('../native').NativeSqlCheck} check
 * @returns {Promise<void>}
 */
async function checkPg(client, check) {
  let step = check.start()
  let failed
  let didFail = false
  while (step.kind !== 'done') {
    /** @type {Observed} */
    let observed
    didFail = false
    try {
      const result = await client.query(/** @type {string} */ (step.sql), step.params)
      const row = result.rows[0]
      observed =
        step.kind === 'execute'
          ? { kind: 'changed', changed: result.rowCount ?? 0 }
          : { kind: 'row', row: textOf(row === undefined ? undefined : Object.values(row)[0]) }
    } catch (err) {
      ;[failed, didFail] = [err, true]
      observed = { kind: 'failed', failure: pgFailureOf(err) }
    }
    step = mappedSync(() => check.observe(observed))
  }
  concluded(step, failed, didFail)
}

/**
 * Checks `fence` against the largest recorded for `resource` and records
 * it, inside the caller's open transaction on `handle`. See index.d.ts.
 * @param {unknown} handle
 * @param {unknown} resource
 * @param {unknown} fence
 * @returns {void | Promise<void>}
 */
function check(handle, resource, fence) {
  const kind = kindOf(handle, 'guard.check')
  if ('sqlite' in kind) return checkSqlite(kind.sqlite, resource, fence)
  // pg knows the status the server last reported: 'I' is idle, outside a
  // transaction (await the BEGIN before the check).
  const status = typeof kind.pg.getTransactionStatus === 'function' ? kind.pg.getTransactionStatus() : undefined
  try {
    return checkPg(kind.pg, machine('postgres', resource, fence, status !== 'I'))
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
  return kind.pg.query(migration('postgres')).then(() => undefined)
}

/**
 * The migration that makes tinystore_fences, for "sqlite" or "postgres".
 * @param {unknown} dialect
 * @returns {string}
 */
function migration(dialect) {
  if (typeof dialect !== 'string') throw new InvalidError(`guard dialect must be "sqlite" or "postgres", not ${describe(dialect)}`)
  return mappedSync(() => native.guardMigration(dialect))
}

const guard = Object.freeze({ check, ensure, migration, isSerializationFailure, s3 })

module.exports = { guard }
