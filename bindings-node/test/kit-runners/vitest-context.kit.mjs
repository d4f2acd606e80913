// vitest, the test context's onTestFinished: testStore(context) closes its
// kit, the test passed or failed. Run by ../kit-runners.test.mjs in a child
// process (vitest.config.mjs), which checks the runner's verdict (the second
// test fails on purpose, the others pass) and that every kit directory named
// in $TINYSTORE_KIT_DIRS is gone; the third test checks that the first two
// kits were closed at their own tests' ends.
import { appendFileSync, existsSync, readFileSync } from 'node:fs'
import { expect, test } from 'vitest'
import { testStore } from 'tinystore/testing'

/** @param {{ dir: string }} kit */
const record = kit => appendFileSync(/** @type {string} */ (process.env.TINYSTORE_KIT_DIRS), `${kit.dir}\n`)

test('a lease expired on purpose', async context => {
  const kit = await testStore(context)
  record(kit)
  const jobs = kit.store.locks('jobs')
  const a = await jobs.acquire('report')
  await kit.expire(a)
  expect(a.signal.reason.code).toBe('lease_lost')
  const b = await jobs.acquire('report')
  expect(b.fence > a.fence).toBe(true)
})

test('fails on purpose: its served kit is closed all the same', async context => {
  const kit = await testStore(context, { served: true })
  record(kit)
  await kit.store.locks('jobs').acquire('report')
  expect('this test').toBe('failing on purpose')
})

test("the kits of the tests before are gone: closed at each test's end", () => {
  const dirs = readFileSync(/** @type {string} */ (process.env.TINYSTORE_KIT_DIRS), 'utf8').split('\n').filter(Boolean)
  expect(dirs.length).toBe(2)
  expect(dirs.filter(dir => existsSync(dir))).toEqual([])
})
