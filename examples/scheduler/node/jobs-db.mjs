// jobs.db: the schema, and the job's run guarded by the leader's term,
// over better-sqlite3.

import Database from 'better-sqlite3'
import { readFileSync } from 'node:fs'
import { fenceText } from 'tinystore'

const SCHEMA = new URL('../schema.sql', import.meta.url)
const JOB = 'nightly-report'

/**
 * Opens jobs.db (a 10 s busy timeout) with its schema.
 * @param {string} path
 * @returns {Database.Database}
 */
export function openDb(path) {
  const db = new Database(path, { timeout: 10_000 })
  db.exec(readFileSync(SCHEMA, 'utf8'))
  return db
}

/**
 * Runs the job as the leader `by` of term `term`: counted only when no
 * later leader ran it (the term kept is at most this one; `<=` lets a
 * leader run it many times in its term). Gives the rows changed: 0 for a
 * deposed leader.
 * @param {Database.Database} db
 * @param {string} by
 * @param {bigint} term
 * @returns {number}
 */
export function runJob(db, by, term) {
  const text = fenceText(term)
  return db
    .prepare('update jobs set runs = runs + 1, last_run_by = ?, term = ? where name = ? and term <= ?')
    .run(by, text, JOB, text).changes
}

/**
 * What jobs.db keeps of the job: its runs, who ran it last, and that
 * leader's term.
 * @param {Database.Database} db
 * @returns {string}
 */
export function kept(db) {
  const row = /** @type {{ runs: number, last_run_by: string, term: string }} */ (
    db.prepare('select runs, last_run_by, term from jobs where name = ?').get(JOB)
  )
  return `${row.runs} run(s), last by ${row.last_run_by} with term ${row.term.replace(/^0+/, '')}`
}
