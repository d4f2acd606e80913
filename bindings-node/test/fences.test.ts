// The fence vectors of vectors/fences.json, both ways, through the core's
// strict parser; every invalid string refused, including those BigInt() takes.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'
import { InvalidError, TinystoreError, fenceText, parseFence } from 'tinystore'
import { repo } from './helpers'

interface Vectors {
  cases: { value: string; text: string; epoch: string; count: string }[]
  ordered: [string, string][]
  invalid: string[]
}

const vectors: Vectors = JSON.parse(readFileSync(path.join(repo, 'vectors', 'fences.json'), 'utf8'))
const LOW = (1n << 64n) - 1n

test('every case, value to text and back', () => {
  assert.ok(vectors.cases.length > 0)
  for (const c of vectors.cases) {
    const value = parseFence(c.value)
    assert.equal(typeof value, 'bigint')
    assert.equal(value.toString(), c.value, `value ${c.value}`)
    assert.equal(fenceText(value), c.text, `text of ${c.value}`)
    assert.equal(parseFence(c.text), value, `parse of ${c.text}`)
    assert.equal((value >> 64n).toString(), c.epoch, `epoch of ${c.value}`)
    assert.equal((value & LOW).toString(), c.count, `count of ${c.value}`)
    assert.equal(value.toString().padStart(40, '0'), c.text, 'the seed\'s padStart gives the text form')
  }
})

test('each ordered pair is less-than as numbers and as texts', () => {
  assert.ok(vectors.ordered.length > 0)
  for (const [a, b] of vectors.ordered) {
    assert.ok(parseFence(a) < parseFence(b), `${a} < ${b}`)
    assert.ok(fenceText(parseFence(a)) < fenceText(parseFence(b)), `text ${a} < ${b}`)
  }
})

test('every invalid string is refused with an invalid error', () => {
  assert.ok(vectors.invalid.length > 0)
  let bigintTakes = 0
  for (const text of vectors.invalid) {
    assert.throws(
      () => parseFence(text),
      (err: unknown) => err instanceof InvalidError && err instanceof TinystoreError && err.code === 'invalid' && err.message.includes('fence'),
      `parseFence(${JSON.stringify(text)})`,
    )
    try {
      BigInt(text)
      bigintTakes++
    } catch {
      // BigInt refuses this one too
    }
  }
  assert.ok(bigintTakes > 0, 'some invalid strings are ones BigInt() accepts')
})

test('fenceText refuses bigints outside 0..2^128-1 and non-bigints', () => {
  assert.throws(() => fenceText(-1n), InvalidError)
  assert.throws(() => fenceText(1n << 128n), InvalidError)
  assert.equal(fenceText((1n << 128n) - 1n), '340282366920938463463374607431768211455'.padStart(40, '0'))
  assert.throws(() => fenceText(7 as unknown as bigint), InvalidError)
  assert.throws(() => parseFence(7 as unknown as string), InvalidError)
})
