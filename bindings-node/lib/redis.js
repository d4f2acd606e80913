'use strict'
// The guard on Redis and Valkey, on the user's own client: ioredis (a
// Redis or a Cluster) or node-redis (`redis`, v4 and later: a client made
// by createClient or createCluster). One Lua script, the core's
// (NativeRedisCheck), checks the fence kept beside the key, makes the
// write and records the fence; Redis runs it alone. This file sends it
// (EVALSHA, and EVAL once on NOSCRIPT) and reports the reply or the
// client's error; the machine decides. Its end follows the one policy of
// lib/guard_driver.js: the client's own errors are rethrown as they are.
//
// Neither client is required here: one is told from the other by its
// methods (ioredis: `evalsha` and `eval` with the number of keys;
// node-redis: `evalSha` and `eval` with { keys, arguments }), so both stay
// optional peer dependencies.
const { createHash } = require('node:crypto')
const native = require('./native')
const { describe } = require('./convert')
const { InvalidError, TinystoreInternalError, mappedSync } = require('./errors')
const { text, underOf } = require('./guard_input')
const { redisFailureOf, concluded } = require('./guard_driver')

/**
 * @typedef {import('../native').NativeGuardStep} Step
 * @typedef {{ evalsha(sha: string, numkeys: number, ...keysAndArgs: string[]): Promise<unknown>, eval(script: string, numkeys: number, ...keysAndArgs: string[]): Promise<unknown> }} Ioredis
 * @typedef {{ keys: string[], arguments: string[] }} EvalOptions
 * @typedef {{ evalSha(sha: string, options: EvalOptions): Promise<unknown>, eval(script: string, options: EvalOptions): Promise<unknown> }} NodeRedis
 * @typedef {(script: string, sha: string, keys: string[], args: string[]) => Promise<unknown>} Runner
 */

/**
 * How to run a script on `client`, or an InvalidError naming what it is.
 * @param {unknown} client
 * @param {string} where
 * @returns {{ evalsha: Runner, eval: Runner }}
 */
function runnerOf(client, where) {
  if (client !== null && typeof client === 'object') {
    const c = /** @type {Record<string, unknown>} */ (client)
    if (typeof c.evalSha === 'function' && typeof c.eval === 'function') {
      const r = /** @type {NodeRedis} */ (client)
      return {
        evalsha: (_, sha, keys, args) => r.evalSha(sha, { keys, arguments: args }),
        eval: (script, _, keys, args) => r.eval(script, { keys, arguments: args }),
      }
    }
    if (typeof c.evalsha === 'function' && typeof c.eval === 'function') {
      const r = /** @type {Ioredis} */ (client)
      return {
        evalsha: (_, sha, keys, args) => r.evalsha(sha, keys.length, ...keys, ...args),
        eval: (script, _, keys, args) => r.eval(script, keys.length, ...keys, ...args),
      }
    }
  }
  throw new InvalidError(`${where} takes an ioredis client or a node-redis client (redis), not ${describe(client)}`)
}

/** The SHA1 of each script text sent, computed once. @type {Map<string, string>} */
const shas = new Map()

/** @param {string} script */
function shaOf(script) {
  let sha = shas.get(script)
  if (sha === undefined) {
    sha = createHash('sha1').update(script, 'utf8').digest('hex')
    if (shas.size >= 1024) shas.clear() // callers' own bodies: bounded
    shas.set(script, sha)
  }
  return sha
}

/** @param {unknown} err */
const noScript = err => redisFailureOf(err).errorCode === 'NOSCRIPT'

/**
 * One reply element as the machine reads it: text.
 * @param {unknown} item
 * @returns {string}
 */
function textOf(item) {
  if (typeof item === 'string') return item
  if (item instanceof Uint8Array) return Buffer.from(item).toString('utf8')
  if (item === null || item === undefined) return ''
  return String(item)
}

/**
 * Runs the machine's one step on `client`: its script (EVALSHA, then EVAL
 * once when the server does not have it); resolves to the script's reply
 * when accepted, else rejects as the policy says.
 * @param {{ evalsha: Runner, eval: Runner }} runner
 * @param {import('../native').NativeRedisCheck} machine
 * @returns {Promise<unknown>}
 */
async function run(runner, machine) {
  let step = mappedSync(() => machine.start())
  /** @type {unknown} */
  let reply
  /** @type {unknown} */
  let failed
  let didFail = false
  if (step.kind === 'eval') {
    const script = /** @type {string} */ (step.script)
    const keys = step.keys ?? []
    const args = step.args ?? []
    const sha = shaOf(script)
    try {
      try {
        reply = await runner.evalsha(script, sha, keys, args)
      } catch (err) {
        if (!noScript(err)) throw err
        reply = await runner.eval(script, sha, keys, args)
      }
    } catch (err) {
      ;[failed, didFail] = [err, true]
    }
    const observed = () =>
      didFail ? machine.failed(redisFailureOf(failed)) : machine.reply(Array.isArray(reply) ? reply.map(textOf) : [textOf(reply)])
    step = mappedSync(observed)
  }
  if (step.kind !== 'done') throw new TinystoreInternalError(`the Redis guard was given a step it does not make: ${step.kind}`)
  concluded(step, failed, didFail)
  return reply
}

/**
 * The machine `make` makes, with its InvalidError as a rejection.
 * @param {() => import('../native').NativeRedisCheck} make
 */
const machineOf = make => mappedSync(make)

/**
 * `SET key value`, guarded by `fence`. See index.d.ts.
 * @param {unknown} client
 * @param {unknown} key
 * @param {unknown} value
 * @param {unknown} fence
 * @returns {Promise<void>}
 */
async function set(client, key, value, fence) {
  const where = 'guard.redis.set'
  const runner = runnerOf(client, where)
  const k = text(key, 'key', where)
  const v = text(value, 'value', where)
  const under = underOf(fence, where)
  await under.checked(k, 'redis', () => run(runner, machineOf(() => native.NativeRedisCheck.set(k, v, under.fence))))
}

/**
 * `DEL key`, guarded by `fence`; the fence stays. See index.d.ts.
 * @param {unknown} client
 * @param {unknown} key
 * @param {unknown} fence
 * @returns {Promise<void>}
 */
async function del(client, key, fence) {
  const where = 'guard.redis.delete'
  const runner = runnerOf(client, where)
  const k = text(key, 'key', where)
  const under = underOf(fence, where)
  await under.checked(k, 'redis', () => run(runner, machineOf(() => native.NativeRedisCheck.del(k, under.fence))))
}

/**
 * `HSET key field value ...` of `fields`, guarded by `fence`. See index.d.ts.
 * @param {unknown} client
 * @param {unknown} key
 * @param {unknown} fields
 * @param {unknown} fence
 * @returns {Promise<void>}
 */
async function hset(client, key, fields, fence) {
  const where = 'guard.redis.hset'
  const runner = runnerOf(client, where)
  const k = text(key, 'key', where)
  if (fields === null || typeof fields !== 'object' || Array.isArray(fields) || fields instanceof Map) {
    throw new InvalidError(`${where} takes its fields as an object of string values, not ${describe(fields)}`)
  }
  const pairs = Object.entries(fields).map(([field, value]) => [
    text(field, 'a hash field', where),
    text(value, `hash field ${JSON.stringify(field)}'s value`, where),
  ])
  const under = underOf(fence, where)
  await under.checked(k, 'redis', () => run(runner, machineOf(() => native.NativeRedisCheck.hset(k, pairs, under.fence))))
}

/**
 * A list of strings given as `name`, or an InvalidError.
 * @param {unknown} list
 * @param {string} name
 * @param {string} where
 * @returns {string[]}
 */
function texts(list, name, where) {
  if (list === undefined) return []
  if (!Array.isArray(list)) throw new InvalidError(`${where}: ${name} must be an array of strings, not ${describe(list)}`)
  return list.map((item, i) => text(item, `${name}[${i}]`, where))
}

/**
 * The caller's own Lua `body`, run behind the check; resolves to its
 * reply. See index.d.ts.
 * @param {unknown} client
 * @param {unknown} key
 * @param {unknown} body
 * @param {unknown} fence
 * @param {unknown} [options]
 * @returns {Promise<unknown>}
 */
async function script(client, key, body, fence, options) {
  const where = 'guard.redis.script'
  const runner = runnerOf(client, where)
  const k = text(key, 'key', where)
  const b = text(body, 'body', where)
  if (options !== undefined && (options === null || typeof options !== 'object')) {
    throw new InvalidError(`${where} takes its options as { keys, args }, not ${describe(options)}`)
  }
  const o = /** @type {{ keys?: unknown, args?: unknown }} */ (options ?? {})
  const keys = texts(o.keys, 'keys', where)
  const args = texts(o.args, 'args', where)
  const under = underOf(fence, where)
  const reply = await under.checked(k, 'redis', () => run(runner, machineOf(() => native.NativeRedisCheck.script(k, b, keys, args, under.fence))))
  return Array.isArray(reply) && reply.length > 1 ? reply[1] : null
}

const redis = Object.freeze({ set, delete: del, hset, script })

module.exports = { redis }
