// The addon's typings of src/guard_redis.rs, rendered from the Rust side by scripts/typings.js.
// Do not edit: change the Rust code, build, and run `node scripts/typings.js`.

import type { NativeDriverFailure, NativeGuardStep } from './guard_step'

/** One guarded write of a fence to a Redis key. */
export declare class NativeRedisCheck {
  /** `SET key value`, guarded by `fence`. */
  static set(key: string, value: string, fence: bigint): NativeRedisCheck
  /** `DEL key`, guarded by `fence`; the fence stays recorded. */
  static del(key: string, fence: bigint): NativeRedisCheck
  /**
   * `HSET key field value ...` of `fields`, each `[field, value]`,
   * guarded by `fence`.
   */
  static hset(key: string, fields: Array<Array<string>>, fence: bigint): NativeRedisCheck
  /**
   * The caller's own Lua `body`, run behind the check with `KEYS` the
   * data key then `keys` and `ARGV` `args`, guarded by `fence`.
   */
  static script(key: string, body: string, keys: Array<string>, args: Array<string>, fence: bigint): NativeRedisCheck
  /** The first step (`eval`), or the end for bad input. */
  start(): NativeGuardStep
  /** The end, after the script answered `reply` (each element as text). */
  reply(reply: Array<string>): NativeGuardStep
  /** The end, after the call failed in the client, as it reported. */
  failed(failure: NativeDriverFailure): NativeGuardStep
}
