#!/usr/bin/env node
// Benchmark: the S3 guard's cost per write from Node, on moto's S3 server
// at $TINYSTORE_S3_URL (tests/guards/with-s3.sh). A plain put
// (PutObjectCommand, no condition) of one key against guarded puts
// (guard.s3.put, one object per fence under the key) of two others, in one
// bucket, one S3Client: one lease's writes (an equal fence each time: a
// listing, the put of its fence's object, a listing) and a later lease's
// each time (a new fence: the same, then the delete of the previous fence's
// object). Every body differs ("write N"). The kinds take turns write by
// write, so that the load of a shared machine falls on each alike; prints
// the median µs of each kind's writes, each timed alone, after a warm-up of
// a quarter as many, and the ratios.
// Run by `make bench-guards-s3-node`; WRITES sets the count (default 1,000).
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { guard } = require('tinystore')
const { CreateBucketCommand, PutObjectCommand, S3Client } = require('@aws-sdk/client-s3')

const endpoint = process.env.TINYSTORE_S3_URL
if (!endpoint) throw new Error('TINYSTORE_S3_URL is unset: run under tests/guards/with-s3.sh')
const WRITES = Number(process.env.WRITES ?? 1000)
const FENCE = 7n

/** @param {number[]} xs */
const median = xs => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

async function main() {
  const s3 = new S3Client({ endpoint, forcePathStyle: true, region: 'us-east-1' })
  const Bucket = `bench-node-${process.pid}`
  await s3.send(new CreateBucketCommand({ Bucket }))
  let n = 0
  let later = FENCE
  /** @type {[string, () => Promise<unknown>][]} */
  const kinds = [
    ['plain', () => s3.send(new PutObjectCommand({ Bucket, Key: 'plain', Body: `write ${++n}` }))],
    ['guard', () => guard.s3.put(s3, { bucket: Bucket, key: 'guarded', body: `write ${++n}`, fence: FENCE })],
    ['later', () => guard.s3.put(s3, { bucket: Bucket, key: 'later', body: `write ${++n}`, fence: ++later })],
  ]
  /** @type {number[][]} */
  const times = kinds.map(() => [])
  for (let i = 0; i < WRITES / 4; i++) for (const [, write] of kinds) await write() // warm up
  for (let i = 0; i < WRITES; i++) {
    for (let k = 0; k < kinds.length; k++) {
      const start = process.hrtime.bigint()
      await kinds[k][1]()
      times[k].push(Number(process.hrtime.bigint() - start) / 1e3)
    }
  }
  const [plain, guarded, newer] = times.map(median)
  console.log(`S3 (moto on loopback), ${WRITES} writes of each, median µs per write`)
  console.log(`  plain put (no condition)                            ${plain.toFixed(1)}`)
  console.log(`  guarded put, one lease (list, put, list)            ${guarded.toFixed(1)}`)
  console.log(`  guarded put, a new fence (list, put, list, delete) ${newer.toFixed(1)}`)
  console.log(`  the guard adds ${(guarded - plain).toFixed(1)} µs (${(guarded / plain).toFixed(2)}x the plain put), ` +
    `${(newer - plain).toFixed(1)} µs (${(newer / plain).toFixed(2)}x) with a new fence`)
  s3.destroy()
}

main().catch(err => {
  console.error(err)
  process.exit(1)
})
