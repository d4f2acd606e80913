// Runs the guard's conformance matrix (guard-conformance.mjs) as a test:
// every cell of vectors/guards.json that TypeScript runs must print its
// MATRIX line, and none FAIL. It needs PostgreSQL, S3 (and DynamoDB), Redis
// and MariaDB ($TINYSTORE_PG_URL, $TINYSTORE_S3_URL, $TINYSTORE_REDIS_URL,
// $TINYSTORE_MYSQL_URL), and fake-gcs-server and Azurite when the vectors
// name gcs and azure ($TINYSTORE_GCS_URL, $TINYSTORE_AZURE_URL): make
// test-node starts them all; without them it skips, unless a
// TINYSTORE_REQUIRE_<SERVER>=1 of one of them is set.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'

const here = path.dirname(new URL(import.meta.url).pathname)
// GCS and Azure too (TINYSTORE_GCS_URL, TINYSTORE_AZURE_URL, under
// with-gcs.sh and with-azurite.sh) once the vectors name their columns.
const named = Object.keys(JSON.parse(readFileSync(path.join(here, '..', '..', 'vectors', 'guards.json'), 'utf8')).backends)
const kinds = ['PG', 'S3', 'REDIS', 'MYSQL', ...(named.includes('gcs') ? ['GCS'] : []), ...(named.includes('azure') ? ['AZURE'] : [])]
const servers = kinds.every(server => process.env[`TINYSTORE_${server}_URL`])
const required = kinds.some(server => process.env[`TINYSTORE_REQUIRE_${server}`] === '1')
const needs = `needs ${kinds.map(server => `TINYSTORE_${server}_URL`).join(', ')}`

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
