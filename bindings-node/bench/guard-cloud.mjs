#!/usr/bin/env node
// Benchmark: what guard.dynamodb, guard.gcs and guard.azure cost per write
// from Node, each against the same write unguarded, on the emulators the
// Makefile starts: a plain PutItemCommand against guard.dynamodb.putItem
// (one TransactWriteItems of the item and the register's conditional put)
// on moto ($TINYSTORE_S3_URL), a plain `file.save(body, { resumable: false
// })` (one multipart upload, as the guard's) against guard.gcs.save (a
// getMetadata, then a save on the generation) on fake-gcs-server
// ($TINYSTORE_GCS_URL, bucket tinystore), and a plain `blob.upload`
// against guard.azure.upload (a getProperties, then an upload on the ETag)
// on Azurite ($TINYSTORE_AZURE_CONNECTION_STRING, container tinystore), of
// one small item or object ("summary N"), one client each. Plain and
// guarded take turns sample by sample (a sample is WRITES writes of one
// kind, timed together), after one round as warm-up; prints the median µs
// per write of each and the ratios, as core/benches/guard_cloud.rs,
// bindings-python/bench/guard_cloud.py and tests/guards/go/bench-cloud do
// (9 samples of 100 writes). The figures are the emulators', not the
// clouds'.
// Run by `make bench-guards-cloud-node`; SAMPLES and WRITES set the counts.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { guard } = require('tinystore')
const { CreateTableCommand, DynamoDBClient, PutItemCommand } = require('@aws-sdk/client-dynamodb')
const { Storage } = require('@google-cloud/storage')
const { BlobServiceClient } = require('@azure/storage-blob')

const env = Object.fromEntries(
  ['TINYSTORE_S3_URL', 'TINYSTORE_GCS_URL', 'TINYSTORE_AZURE_CONNECTION_STRING'].map(k => [k, process.env[k] ?? '']),
)
const missing = Object.keys(env).filter(k => !env[k])
if (missing.length) throw new Error(`${missing.join(', ')} unset: run with make bench-guards-cloud-node`)
// @google-cloud/storage 7 takes STORAGE_EMULATOR_HOST (which with-gcs.sh
// sets, for other clients) as its JSON API's whole base URL, ahead of
// apiEndpoint; the endpoint is named instead (as test/versioned.test.ts does).
delete process.env.STORAGE_EMULATOR_HOST
const SAMPLES = Number(process.env.SAMPLES ?? 9)
const WRITES = Number(process.env.WRITES ?? 100)

// A client's version, from its package.json (not every package exports that file).
const version = (/** @type {string} */ name) =>
  JSON.parse(readFileSync(new URL(`../node_modules/${name}/package.json`, import.meta.url), 'utf8')).version

/** @param {number[]} xs */
const median = xs => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/**
 * The median µs per write of `plain` and of `guarded`, in turn sample by
 * sample, each given a number larger than the last (its fence, and its body's).
 * @param {(n: bigint) => Promise<unknown>} plain
 * @param {(n: bigint) => Promise<unknown>} guarded
 * @returns {Promise<[number, number]>}
 */
async function pair(plain, guarded) {
  let n = 0n
  /** @type {[number[], number[]]} */
  const took = [[], []]
  for (let round = 0; round <= SAMPLES; round++) {
    for (const [k, write] of [plain, guarded].entries()) {
      const start = process.hrtime.bigint()
      for (let i = 0; i < WRITES; i++) await write(++n)
      // The first round warms the connections up, unmeasured.
      if (round > 0) took[k].push(Number(process.hrtime.bigint() - start) / 1e3 / WRITES)
    }
  }
  return [median(took[0]), median(took[1])]
}

async function dynamodb() {
  const client = new DynamoDBClient({
    endpoint: env.TINYSTORE_S3_URL,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  })
  const TableName = `bench-chats-node-${process.pid}`
  await client.send(new CreateTableCommand({
    TableName,
    KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
    AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
    BillingMode: 'PAY_PER_REQUEST',
  }))
  await guard.dynamodb.ensure(client)
  const item = (/** @type {string} */ id, /** @type {bigint} */ n) => ({ id: { S: id }, summary: { S: `summary ${n}` } })
  try {
    return await pair(
      n => client.send(new PutItemCommand({ TableName, Item: item('plain', n) })),
      n => guard.dynamodb.putItem(client, 'bench/guarded', n, { TableName, Item: item('guarded', n) }),
    )
  } finally {
    client.destroy()
  }
}

async function gcs() {
  const bucket = new Storage({ apiEndpoint: env.TINYSTORE_GCS_URL, projectId: 'bench' }).bucket('tinystore')
  const name = `bench-node-${process.pid}`
  const plain = bucket.file(`${name}-plain`)
  const guarded = bucket.file(`${name}-guarded`)
  return pair(
    n => plain.save(`summary ${n}`, { resumable: false }),
    n => guard.gcs.save(guarded, `summary ${n}`, n),
  )
}

async function azure() {
  const container = BlobServiceClient.fromConnectionString(env.TINYSTORE_AZURE_CONNECTION_STRING).getContainerClient('tinystore')
  const name = `bench-node-${process.pid}`
  const plain = container.getBlockBlobClient(`${name}-plain`)
  const guarded = container.getBlockBlobClient(`${name}-guarded`)
  return pair(
    n => {
      const body = `summary ${n}`
      return plain.upload(body, Buffer.byteLength(body))
    },
    n => guard.azure.upload(guarded, `summary ${n}`, n),
  )
}

async function main() {
  /** @type {[string, string, [number, number]][]} */
  const rows = [
    [`DynamoDB (moto), @aws-sdk/client-dynamodb ${version('@aws-sdk/client-dynamodb')}`, '`PutItemCommand`', await dynamodb()],
    [`GCS (fake-gcs-server), @google-cloud/storage ${version('@google-cloud/storage')}`, '`file.save` (multipart)', await gcs()],
    [`Azure Blob (Azurite), @azure/storage-blob ${version('@azure/storage-blob')}`, '`blob.upload`', await azure()],
  ]
  console.log(`median of ${SAMPLES} samples of ${WRITES} writes, plain and guarded in turn`)
  console.log('| store, client | the plain write | µs plain | µs guarded | guarded over plain |')
  console.log('| --- | --- | ---: | ---: | ---: |')
  for (const [store, write, [p, g]] of rows) {
    console.log(`| ${store} | ${write} | ${p.toFixed(0)} | ${g.toFixed(0)} | ${(g / p).toFixed(2)}x |`)
  }
}

main().catch(err => {
  console.error(err)
  process.exit(1)
})
