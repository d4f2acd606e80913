// The guard cases of vectors/behaviour.json, shared by the SQL guard's
// tests of every driver (guard.test.ts, mysql.test.ts): each case, and how
// a check's outcome, the caller's own rows and the register are judged.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { StaleError, TinystoreError, errorClasses, parseFence } from 'tinystore'
import { repo } from './helpers'

/** One guard case: the register before (`table`, `recorded`), the write, and what must come of it. */
export interface Case {
  id: string
  table: boolean
  recorded?: string
  resource: string
  fence: bigint
  expect: string
  recorded_after?: string
  largest?: bigint
  message_has?: string
}

/** Every guard case of vectors/behaviour.json. */
export function cases(): Case[] {
  const all = JSON.parse(readFileSync(path.join(repo, 'vectors', 'behaviour.json'), 'utf8'))
  const raw: Record<string, unknown>[] = all.guard.cases
  assert.ok(raw.length >= 10, 'the guard vectors have lost cases')
  return raw.map(v => {
    const r = v.resource as string | { repeat: string; times: number } | undefined
    return {
      id: v.id as string,
      table: v.table !== false,
      recorded: v.recorded as string | undefined,
      resource: r === undefined ? 'chats/42' : typeof r === 'string' ? r : r.repeat.repeat(r.times),
      fence: parseFence(v.fence as string),
      expect: v.expect as string,
      recorded_after: v.recorded_after as string | undefined,
      largest: v.largest === undefined ? undefined : parseFence(v.largest as string),
      message_has: v.message_has as string | undefined,
    }
  })
}

/** Judges a case from the check's error (undefined: it returned), the notes rows and the register's row after. */
export function judge(c: Case, err: unknown, notes: number, register: string | undefined): void {
  const id = c.id
  if (c.expect === 'accepted') {
    assert.equal(err, undefined, `${id}: refused: ${err}`)
    assert.equal(notes, 1, `${id}: the accepted write's own row is missing`)
    assert.equal(register, c.recorded_after, `${id}: register`)
    return
  }
  assert.ok(err instanceof TinystoreError, `${id}: ${err}`)
  const want = errorClasses[c.expect as keyof typeof errorClasses]
  assert.ok(want, `${id}: unknown code ${c.expect}`)
  assert.ok(err instanceof want, `${id}: ${err.name}: ${err.message}`)
  assert.equal(err.code, c.expect, id)
  if (c.message_has !== undefined) assert.ok(err.message.includes(c.message_has), `${id}: ${err.message}`)
  if (c.largest !== undefined) {
    assert.ok(err instanceof StaleError, id)
    assert.deepEqual([err.resource, err.fence, err.largest], [c.resource, c.fence, c.largest], id)
  }
  assert.equal(notes, 0, `${id}: a refused write left its own row`)
  if (c.table) assert.equal(register, c.recorded, `${id}: a refused write changed the register`)
}

/** Runs `call`, giving what it threw (undefined when it returned). */
export async function failure(call: () => unknown): Promise<unknown> {
  try {
    await call()
    return undefined
  } catch (err) {
    return err
  }
}
