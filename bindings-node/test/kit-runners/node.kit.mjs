// node:test: testStore(t) closes its kit by t.after, the test passed or
// failed. Run by ../kit-runners.test.mjs in a child process, which checks
// the runner's verdict (the second test fails on purpose, the others pass)
// and that every kit directory named in $TINYSTORE_KIT_DIRS is gone; the
// third test checks that the first two kits were closed at their own tests'
// ends.
import assert from 'node:assert/strict'
import { appendFileSync, existsSync, readFileSync } from 'node:fs'
import { test } from 'node:test'
import { LeaseLostError } from 'tinystore'
import { testStore } from 'tinystore/testing'

/** @param {{ dir: string }} kit */
const record = kit => appendFileSync(/** @type {string} */ (process.env.TINYSTORE_KIT_DIRS), `${kit.dir}\n`)

test('a lease expired on purpose', async t => {
  const kit = await testStore(t)
  record(kit)
  const jobs = kit.store.locks('jobs')
  const a = await jobs.acquire('report')
  await kit.expire(a)
  assert.ok(a.signal.reason instanceof LeaseLostError)
  const b = await jobs.acquire('report')
  assert.ok(b.fence > a.fence)
})

test('fails on purpose: its served kit is closed all the same', async t => {
  const kit = await testStore(t, { served: true })
  record(kit)
  await kit.store.locks('jobs').acquire('report')
  assert.fail('this test fails on purpose')
})

test('the kits of the tests before are gone: closed at each test\'s end', () => {
  const dirs = readFileSync(/** @type {string} */ (process.env.TINYSTORE_KIT_DIRS), 'utf8').split('\n').filter(Boolean)
  assert.equal(dirs.length, 2)
  assert.deepEqual(dirs.filter(dir => existsSync(dir)), [])
})
