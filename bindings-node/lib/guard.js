'use strict'
// The SQL guard on the handles users already have: a better-sqlite3
// Database (sync) or a pg Client / PoolClient (async). The check is the
// core's machine (src/guard_sql.rs): it gives each statement, this file
// runs it on the handle and reports the rows changed, the row read or the
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
 * @typedef {{ kind: 'execute' | 'query', statement: number, sql: string, params: string[] } | { kind: 'done', verdict: string, error?: import('../native').NativeError }} SqlStep
 */

/** The slots of the checks no longer under way, to hand out again. @type {number[]} */
const freeSlots = []
let slots = 0

/** The statements' texts by number, as the addon gives them. @type {string[]} */
const texts = []

/**
 * A step as src/guard_sql.rs gives it: fields separated by NUL, the
 * message of a `done` step's error the rest of the text.
 * @param {string} text
 * @returns {SqlStep}
 */
function stepOf(text) {
  if (text === ACCEPTED_TEXT) return ACCEPTED
  const kindEnd = text.indexOf('\0')
  const kind = text.slice(0, kindEnd)
  if (kind === 'execute' || kind === 'query') {
    const numberEnd = text.indexOf('\0', kindEnd + 1)
    const statement = Number(text.slice(kindEnd + 1, numberEnd === -1 ? undefined : numberEnd))
    const sql = texts[statement] ?? (texts[statement] = mappedSync(() => native.guardSqlText(statement)))
    /** @type {string[]} */
    const params = []
    for (let from = numberEnd + 1, at = numberEnd; at !== -1; from = at + 1) {
      at = text.indexOf('\0', from)
      params.push(text.slice(from, at === -1 ? undefined : at))
    }
    return { kind, statement, sql, params }
  }
  /** @type {string[]} */
  const fields = []
  let from = 0
  for (let at = text.indexOf('\0'); at !== -1 && fields.length < 6; at = text.indexOf('\0', from)) {
    fields.push(text.slice(from, at))
    from = at + 1
  }
  const [, verdict, code, resource, fence, largest] = fields
  const stale = resource === '' ? undefined : { resource, fence: BigInt(fence), largest: BigInt(largest) }
  return { kind: 'done', verdict, error: { code, message: text.slice(from), stale } }
}

const ACCEPTED_TEXT = 'done\0accepted'
/** @type {SqlStep} */
const ACCEPTED = Object.freeze({ kind: 'done', verdict: 'accepted' })

/**
 * Runs the core's check of `fence` for `resource`, its arguments checked:
 * `run(step)` takes each statement and gives what came of it.
 * @template {void | Promise<void>} R
 * @param {string} dialect
 * @param {unknown} resource
 * @param {unknown} fence
 * @param {boolean} inTransaction
 * @param {(slot: number, first: SqlStep) => R} run
 * @returns {R}
 */
function checked(dialect, resource, fence, inTransaction, run) {
  const name = text(resource, 'resource', 'guard.check')
  const f = fenceOf(fence, 'guard.check')
  const slot = freeSlots.pop() ?? slots++
  let first
  try {
    first = stepOf(mappedSync(() => native.guardSqlStart(slot, dialect, name, f, inTransaction)))
  } catch (err) {
    freeSlots.push(slot)
    throw err
  }
  return run(slot, first)
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
      step = stepOf(
        didFail
          ? native.guardSqlFailed(slot, failureOf(error))
          : step.kind === 'execute'
            ? native.guardSqlChanged(slot, changes)
            : native.guardSqlRow(slot, row),
      )
    }
  } finally {
    freeSlots.push(slot)
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
      const row = result?.rows[0]
      step = stepOf(
        didFail
          ? native.guardSqlFailed(slot, pgFailureOf(error))
          : step.kind === 'execute'
            ? native.guardSqlChanged(slot, result?.rowCount ?? 0)
            : native.guardSqlRow(slot, textOf(row === undefined ? undefined : Object.values(row)[0])),
      )
    }
  } finally {
    freeSlots.push(slot)
  }
  concluded(step, error, didFail)
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
    const db = kind.sqlite
    return checked('sqlite', resource, fence, db.inTransaction, (slot, first) => checkSqlite(db, slot, first))
  }
  // pg knows the status the server last reported: 'I' is idle, outside a
  // transaction (await the BEGIN before the check).
  const pg = kind.pg
  const status = typeof pg.getTransactionStatus === 'function' ? pg.getTransactionStatus() : undefined
  try {
    return checked('postgres', resource, fence, status !== 'I', (slot, first) => checkPg(pg, slot, first))
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
