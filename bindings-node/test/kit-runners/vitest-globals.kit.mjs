// vitest with `globals: true` (--globals): testStore() with no argument
// closes its kit by vitest's global onTestFinished, the test passed or
// failed. Run by ../kit-runners.test.mjs in a child process
// (vitest.config.mjs, --globals), which checks the runner's verdict (the
// second test fails on purpose, the others pass) and that every kit
// directory named in $TINYSTORE_KIT_DIRS is gone; the third test checks that
// the first two kits were closed at their own tests' ends.
/* global test, expect */
import { appendFileSync, existsSync, readFileSync } from 'node:fs'
import { testStore } from 'tinystore/testing'

/** @param {{ dir: string }} kit */
const record = kit => appendFileSync(/** @type {string} */ (process.env.TINYSTORE_KIT_DIRS), `${kit.dir}\n`)

test('a lease expired on purpose', async () => {
  const kit = await testStore()
  record(kit)
  const jobs = kit.store.locks('jobs')
  const a = await jobs.acquire('report')
  await kit.expire(a)
  expect(a.signal.reason.code).toBe('lease_lost')
  const b = await jobs.acquire('report')
  expect(b.fence > a.fence).toBe(true)
})

test('fails on purpose: its served kit is closed all the same', async () => {
  const kit = await testStore({ served: true })
  record(kit)
  await kit.store.locks('jobs').acquire('report')
  expect('this test').toBe('failing on purpose')
})

test("the kits of the tests before are gone: closed at each test's end", () => {
  const dirs = readFileSync(/** @type {string} */ (process.env.TINYSTORE_KIT_DIRS), 'utf8').split('\n').filter(Boolean)
  expect(dirs.length).toBe(2)
  expect(dirs.filter(dir => existsSync(dir))).toEqual([])
})
