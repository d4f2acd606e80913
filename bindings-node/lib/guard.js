'use strict'
// The SQL guard on the handles users already have: a better-sqlite3
// Database (sync) or a pg Client / PoolClient (async). The statements and
// every decision come from the core through the addon; this file runs them
// on the handle. The driver's own errors pass through as they are (a
// serialization failure is pg's error with code '40001'), but for a missing
// register table, which is the core's InvalidError. Neither driver is imported:
// the handle is told apart by its shape (`prepare` and `inTransaction`, or
// `query`), so both stay optional peer dependencies.
const native = require('./native')
const { describe, fenceText } = require('./convert')
const { InvalidError, fromNativeValue, mappedSync } = require('./errors')
const { s3 } = require('./s3')

/** @typedef {import('../native').NativeGuardStatements} Statements */

/** @type {Map<string, Statements>} */
const statementsOf = new Map()

/**
 * The core's statements for `dialect`, made once per dialect.
 * @param {string} dialect
 * @returns {Statements}
 */
function statements(dialect) {
  let made = statementsOf.get(dialect)
  if (!made) {
    made = mappedSync(() => native.guardStatements(dialect))
    statementsOf.set(dialect, made)
  }
  return made
}

/**
 * @typedef {{ run(...params: unknown[]): { changes: number }, get(...params: unknown[]): unknown }} SqliteStatement
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
 * The resource's name and the fence's 40-digit text, checked by the core.
 * @param {unknown} resource
 * @param {unknown} fence
 * @returns {string}
 */
function checkedText(resource, fence) {
  if (typeof resource !== 'string') throw new InvalidError(`guard resource must be a string, not ${describe(resource)}`)
  const bad = native.guardCheckResource(resource)
  if (bad) throw fromNativeValue(bad)
  return fenceText(/** @type {bigint} */ (fence))
}

/**
 * Decides a check that changed no row from what is recorded now; throws
 * unless an equal fence is recorded.
 * @param {string} resource
 * @param {bigint} fence
 * @param {unknown} recorded
 */
function decide(resource, fence, recorded) {
  const text = recorded === undefined || recorded === null ? null : String(recorded)
  const refusal = mappedSync(() => native.guardRefused(resource, fence, text))
  if (refusal) throw fromNativeValue(refusal)
}

/** @type {WeakMap<object, { check: SqliteStatement, read: SqliteStatement }>} */
const prepared = new WeakMap()

/**
 * @param {SqliteHandle} db
 * @param {string} resource
 * @param {bigint} fence
 * @param {string} text
 */
function checkSqlite(db, resource, fence, text) {
  if (!db.inTransaction) throw fromNativeValue(native.guardNotInTransaction(resource))
  let row
  try {
    let ready = prepared.get(db)
    if (!ready) {
      const { check, read } = statements('sqlite')
      ready = { check: db.prepare(check), read: db.prepare(read) }
      prepared.set(db, ready)
    }
    if (ready.check.run(resource, text).changes > 0) return
    row = /** @type {{ fence: unknown } | undefined} */ (ready.read.get(resource))
  } catch (err) {
    throw sqliteError(resource, err)
  }
  decide(resource, fence, row?.fence)
}

/**
 * The core's error for a missing register table, else the driver's own.
 * @param {string} resource
 * @param {unknown} err
 */
function sqliteError(resource, err) {
  if (err instanceof Error && 'code' in err && /no such table: (\w+\.)?tinystore_fences\b/.test(err.message)) {
    return fromNativeValue(native.guardMissingTable(resource))
  }
  return err
}

/**
 * @param {PgHandle} client
 * @param {string} resource
 * @param {bigint} fence
 * @param {string} text
 * @returns {Promise<void>}
 */
async function checkPg(client, resource, fence, text) {
  // pg knows the status the server last reported: 'I' is idle, outside a
  // transaction (await the BEGIN before the check).
  if (typeof client.getTransactionStatus === 'function' && client.getTransactionStatus() === 'I') {
    throw fromNativeValue(native.guardNotInTransaction(resource))
  }
  const { check, read } = statements('postgres')
  let recorded
  try {
    const changed = await client.query(check, [resource, text])
    if ((changed.rowCount ?? 0) > 0) return
    recorded = (await client.query(read, [resource])).rows[0]?.fence
  } catch (err) {
    throw pgError(resource, err)
  }
  decide(resource, fence, recorded)
}

/**
 * The core's error for a missing register table (SQLSTATE 42P01), else
 * the driver's own.
 * @param {string} resource
 * @param {unknown} err
 */
function pgError(resource, err) {
  const code = err instanceof Error && 'code' in err ? err.code : undefined
  return code === '42P01' ? fromNativeValue(native.guardMissingTable(resource)) : err
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
  if ('sqlite' in kind) {
    const text = checkedText(resource, fence)
    return checkSqlite(kind.sqlite, /** @type {string} */ (resource), /** @type {bigint} */ (fence), text)
  }
  let text
  try {
    text = checkedText(resource, fence)
  } catch (err) {
    return Promise.reject(err)
  }
  return checkPg(kind.pg, /** @type {string} */ (resource), /** @type {bigint} */ (fence), text)
}

/**
 * Makes the register table tinystore_fences if it is missing.
 * @param {unknown} handle
 * @returns {void | Promise<void>}
 */
function ensure(handle) {
  const kind = kindOf(handle, 'guard.ensure')
  if ('sqlite' in kind) {
    kind.sqlite.exec(statements('sqlite').migration)
    return
  }
  return kind.pg.query(statements('postgres').migration).then(() => undefined)
}

/**
 * The migration that makes tinystore_fences, for "sqlite" or "postgres".
 * @param {unknown} dialect
 * @returns {string}
 */
function migration(dialect) {
  if (typeof dialect !== 'string') throw new InvalidError(`guard dialect must be "sqlite" or "postgres", not ${describe(dialect)}`)
  return statements(dialect).migration
}

const guard = Object.freeze({ check, ensure, migration, s3 })

module.exports = { guard }
