// testStore under each test runner: node:test (t.after), vitest (the test
// context's onTestFinished, and testStore() with --globals) and jest
// (testStore(), closed by the afterEach tinystore/testing registered). Each
// fixture in kit-runners/ runs in a child process: its second test fails on
// purpose, the others pass (the third checks the first two kits were closed
// at their own tests' ends), and afterwards every kit directory the fixture
// recorded is gone: the kit is closed even when its test fails.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { after, test } from 'node:test'
import { fileURLToPath } from 'node:url'

const pkg = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const fixtures = path.join(pkg, 'test', 'kit-runners')
const bin = (/** @type {string} */ name) => path.join(pkg, 'node_modules', '.bin', name)

const work = mkdtempSync(path.join(tmpdir(), 'tinystore-kit-runners-'))
after(() => rmSync(work, { recursive: true, force: true }))

/**
 * Runs `command` in bindings-node/ with $TINYSTORE_KIT_DIRS set; resolves
 * to its exit code, its output and the kit directories it recorded.
 * @param {string} name
 * @param {string} command
 * @param {string[]} args
 */
function run(name, command, args) {
  const dirs = path.join(work, `${name}.dirs`)
  // Not NODE_TEST_CONTEXT, which would make a child `node --test` report
  // to this run instead of running its file.
  const { NODE_TEST_CONTEXT: _, ...env } = process.env
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      { cwd: pkg, env: { ...env, TINYSTORE_KIT_DIRS: dirs, NO_COLOR: '1', FORCE_COLOR: '0', CI: '1' }, timeout: 120_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : null) : 0
        if (err && code === null) return reject(err)
        const recorded = existsSync(dirs) ? readFileSync(dirs, 'utf8').split('\n').filter(Boolean) : []
        resolve({ code, output: `${stdout}${stderr}`, recorded })
      },
    )
  })
}

/**
 * The checks every runner shares: exit 1, the verdict `passed`/`failed`
 * read from the output by `counts`, two kits recorded, both gone.
 * @param {{ code: number | null, output: string, recorded: string[] }} outcome
 * @param {(output: string) => [number, number]} counts
 */
function check(outcome, counts) {
  const { code, output, recorded } = outcome
  assert.equal(code, 1, `the run fails (one test fails on purpose):\n${output}`)
  assert.deepEqual(counts(output), [2, 1], `2 passed, 1 failed:\n${output}`)
  assert.match(output, /fails on purpose/)
  assert.equal(recorded.length, 2, `two kits recorded:\n${output}`)
  for (const dir of recorded) assert.equal(existsSync(dir), false, `${dir} is gone`)
}

/** @param {RegExp} pattern @param {string} output */
const number = (pattern, output) => Number(pattern.exec(output)?.[1] ?? NaN)

test('node:test: testStore(t), closed by t.after', async () => {
  const outcome = await run('node', process.execPath, ['--test', '--test-reporter=tap', path.join(fixtures, 'node.kit.mjs')])
  check(outcome, out => [number(/^# pass (\d+)$/m, out), number(/^# fail (\d+)$/m, out)])
})

/** @param {string} out */
const vitestCounts = out => [number(/Tests\s+.*?(\d+) passed/, out), number(/Tests\s+(\d+) failed/, out)]
const vitestConfig = path.join(fixtures, 'vitest.config.mjs')

test("vitest: testStore(context), closed by the context's onTestFinished", async () => {
  check(await run('vitest-context', bin('vitest'), ['run', '--config', vitestConfig, 'vitest-context']), vitestCounts)
})

test('vitest --globals: testStore(), closed by the global onTestFinished', async () => {
  check(await run('vitest-globals', bin('vitest'), ['run', '--globals', '--config', vitestConfig, 'vitest-globals']), vitestCounts)
})

test('jest: testStore(), closed by the afterEach tinystore/testing registered', async () => {
  const outcome = await run('jest', bin('jest'), ['--config', path.join(fixtures, 'jest.config.cjs')])
  check(outcome, out => [number(/Tests:\s+.*?(\d+) passed/, out), number(/Tests:\s+(\d+) failed/, out)])
})
