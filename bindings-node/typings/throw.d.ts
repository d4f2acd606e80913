// The addon's typings of src/throw.rs, rendered from the Rust side by scripts/typings.js.
// Do not edit: change the Rust code, build, and run `node scripts/typings.js`.

import type { NativeStale } from './guard'

/**
 * Throws the core error of `code` with `message`, as any call of the
 * addon fails with one: with `stale` given, the core's `stale` error for
 * it (its own message); an unknown code throws `invalid`.
 */
export declare function errorThrow(code: string, message: string, stale?: NativeStale | undefined | null): void
