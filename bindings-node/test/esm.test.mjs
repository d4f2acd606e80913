// ESM: every name index.d.ts exports as a value (function, class, const)
// can be imported by name from 'tinystore', and is the one `require` gives.
// The names are read from index.d.ts, so a new export cannot be missed.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { test } from 'node:test'
import { LeaseLostError, errorClasses, open, serve } from 'tinystore'

const require = createRequire(import.meta.url)
const typings = readFileSync(new URL('../index.d.ts', import.meta.url), 'utf8')
const declared = [...typings.matchAll(/^export declare (?:function|class|const|namespace) (\w+)/gm)].map(m => m[1])

test('index.d.ts declares the values the tour uses', () => {
  for (const name of ['open', 'connect', 'serve', 'LeaseLostError', 'errorClasses', 'Server', 'guard', 'StaleError']) {
    assert.ok(declared.includes(name), `index.d.ts declares ${name}`)
  }
})

test('every value index.d.ts declares is a named ESM export', async () => {
  const esm = await import('tinystore')
  const cjs = require('tinystore')
  const missing = declared.filter(name => !(name in esm))
  assert.deepEqual(missing, [], `named exports missing in ESM: ${missing.join(', ')}`)
  for (const name of declared) assert.equal(esm[name], cjs[name], `${name} is the same in ESM and CJS`)
})

test('a static named import gives the classes and functions', () => {
  assert.equal(typeof open, 'function')
  assert.equal(typeof serve, 'function')
  assert.equal(errorClasses.lease_lost, LeaseLostError)
})

test('tinystore/testing: every value testing.d.ts declares is a named ESM export, the same as require gives', async () => {
  const kitTypings = readFileSync(new URL('../testing.d.ts', import.meta.url), 'utf8')
  const names = [...kitTypings.matchAll(/^export declare (?:function|class|const) (\w+)/gm)].map(m => m[1])
  assert.deepEqual([...new Set(names)].sort(), ['TestStore', 'advance', 'expire', 'expireKey', 'testStore'])
  const esm = await import('tinystore/testing')
  const cjs = require('tinystore/testing')
  for (const name of names) assert.equal(esm[name], cjs[name], `${name} is the same in ESM and CJS`)
})
