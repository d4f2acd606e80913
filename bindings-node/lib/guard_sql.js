'use strict'
// The SQL check's steps as the addon gives them (src/guard_sql.rs): the
// core's machine, numbered by a slot (one per check under way), its steps
// one string of fields separated by NUL, turned here into plain steps:
// { kind: 'execute' | 'query', statement, sql, params } and
// { kind: 'done', verdict, error }. Functions and text rather than napi
// objects, as the check runs beside every guarded write: see guard_sql.rs.
const native = require('./native')
const { mappedSync } = require('./errors')

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
 * Begins the core's check of `fence` for `resource` in `dialect`: its slot
 * (give it back with `release` when the check ends) and first step.
 * @param {string} dialect
 * @param {string} resource
 * @param {bigint} fence
 * @param {boolean} inTransaction whether the handle has a transaction open
 * @returns {{ slot: number, step: SqlStep }}
 */
function begin(dialect, resource, fence, inTransaction) {
  const slot = freeSlots.pop() ?? slots++
  try {
    return { slot, step: stepOf(mappedSync(() => native.guardSqlStart(slot, dialect, resource, fence, inTransaction))) }
  } catch (err) {
    freeSlots.push(slot)
    throw err
  }
}

/**
 * The step after `step` of the check in `slot`, from what came of it:
 * the rows an `execute` changed, the text a `query` read (undefined: no
 * row), or the driver's failure.
 * @param {number} slot
 * @param {SqlStep} step
 * @param {{ changes?: number, row?: string, failure?: import('../native').NativeDriverFailure }} came
 * @returns {SqlStep}
 */
function after(slot, step, came) {
  if (came.failure) return stepOf(native.guardSqlFailed(slot, came.failure))
  return stepOf(step.kind === 'execute' ? native.guardSqlChanged(slot, came.changes ?? 0) : native.guardSqlRow(slot, came.row))
}

/**
 * Gives back the slot of a check that ended (or was given up).
 * @param {number} slot
 */
function release(slot) {
  freeSlots.push(slot)
}

module.exports = { begin, after, release }

