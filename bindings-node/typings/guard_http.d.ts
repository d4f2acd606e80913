// The addon's typings of src/guard_http.rs, rendered from the Rust side by scripts/typings.js.
// Do not edit: change the Rust code, build, and run `node scripts/typings.js`.

import type { NativeError } from './guard'

/**
 * A request's fence header as read: `error` when malformed, else the
 * fence (`null`: no header).
 */
export interface NativeFenceHeader {
  error?: NativeError
  fence?: bigint
}

/**
 * Fences over HTTP: the header names and statuses, from the core
 * (`tinystore::guard::http`).
 */
export interface NativeHttpGuardConstants {
  /** The request header that carries a fence: `Tinystore-Fence`. */
  fenceHeader: string
  /** The 409's header with the largest fence: `Tinystore-Fence-Largest`. */
  largestHeader: string
  /** The status of a stale request: 409. */
  conflict: number
  /** The status of a malformed fence header: 400. */
  badRequest: number
}

/** The HTTP helpers' header names and statuses. */
export declare function guardHttpConstants(): NativeHttpGuardConstants

/** Reads a request's fence header (`null`: missing) with the core's parser. */
export declare function guardHttpParse(value?: string | undefined | null): NativeFenceHeader

/**
 * Reads the answer to a request that carried `fence`, as a guard's check
 * on `resource` seen from the client (the core's `read_answer`): its
 * status and its `Tinystore-Fence-Largest` header (`null`: absent; sent
 * twice, joined by commas). `null` when accepted; else the `stale` error
 * (a guard in the service refused the write) or the `io` error saying
 * what the answer was.
 */
export declare function guardHttpReadAnswer(status: number, largest: string | undefined | null, resource: string, fence: bigint): NativeError | null

/**
 * The status a service answers for an error of code `code` (409 for
 * `stale`, 400 for `invalid`), or `null` for any other.
 */
export declare function guardHttpStatus(code: string): number | null

/** The header value that carries `fence`. */
export declare function guardHttpValue(fence: bigint): string
