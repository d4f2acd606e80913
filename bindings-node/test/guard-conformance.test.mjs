// Runs the guard's conformance matrix (guard-conformance.mjs) as a test:
// every cell of vectors/guards.json that TypeScript runs must print its
// MATRIX line, and none FAIL. It needs PostgreSQL, S3, Redis and MariaDB
// ($TINYSTORE_PG_URL, $TINYSTORE_S3_URL, $TINYSTORE_REDIS_URL,
// $TINYSTORE_MYSQL_URL: make test-node starts the four); without them it
// skips, unless TINYSTORE_REQUIRE_PG=1, TINYSTORE_REQUIRE_S3=1,
// TINYSTORE_REQUIRE_REDIS=1 or TINYSTORE_REQUIRE_MYSQL=1.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'

const here = path.dirname(new URL(import.meta.url).pathname)
const servers = ['PG', 'S3', 'REDIS', 'MYSQL'].every(server => process.env[`TINYSTORE_${server}_URL`])
const required = ['PG', 'S3', 'REDIS', 'MYSQL'].some(server => process.env[`TINYSTORE_REQUIRE_${server}`] === '1')
const needs = 'needs TINYSTORE_PG_URL, TINYSTORE_S3_URL, TINYSTORE_REDIS_URL and TINYSTORE_MYSQL_URL'

test('the guard conformance matrix: every cell ok', { skip: !servers && !required && needs }, t => {
  const run = spawnSync(process.execPath, [path.join(here, 'guard-conformance.mjs')], { encoding: 'utf8', timeout: 300_000 })
  const lines = run.stdout.split('\n').filter(line => line.startsWith('MATRIX '))
  for (const line of lines) t.diagnostic(line)
  const spec = JSON.parse(readFileSync(path.join(here, '..', '..', 'vectors', 'guards.json'), 'utf8'))
  const cells = Object.keys(spec.backends).flatMap(backend =>
    spec.scenarios.filter(s => s.backends.includes(backend)).map(s => `MATRIX typescript ${backend} ${s.name} `),
  )
  for (const cell of cells) assert.ok(lines.some(line => line.startsWith(cell)), `no line for ${cell.trim()}\n${run.stderr}`)
  assert.deepEqual(lines.filter(line => / FAIL /.test(line)), [], run.stderr)
  assert.equal(run.status, 0, `the runner exited ${run.status}: ${run.stderr}`)
})
