// The addon's typings of src/guard_step.rs, rendered from the Rust side by scripts/typings.js.
// Do not edit: change the Rust code, build, and run `node scripts/typings.js`.

import type { NativeError } from './guard'

/** A driver's or an SDK's error as it reports itself; core classifies it. */
export interface NativeDriverFailure {
  /** pg's `code` (a SQLSTATE such as `40001`). */
  sqlstate?: string
  /** SQLite's numeric result code, when the driver gives one. */
  sqliteCode?: number
  /** An S3 answer's HTTP status. */
  httpStatus?: number
  /**
   * A named code: better-sqlite3's (`SQLITE_BUSY`), the S3 service's
   * (`AccessDenied`), a socket's (`ECONNREFUSED`), or `connection` for a
   * connection lost without one.
   */
  errorCode?: string
  /** The driver's own message. */
  message: string
}

/** What the JS layer observed of the step it took. */
export interface NativeGuardObserved {
  /** `listed`, `written`, `deleted`, `got` or `failed`. */
  kind: string
  /** The keys a `list` found (every page). */
  keys?: Array<string>
  /** The metadata of the object a `get` found. */
  metadata?: Record<string, string>
  /** The driver's error, described. */
  failure?: NativeDriverFailure
}

/** What the JS layer does next, or the protocol's end. */
export interface NativeGuardStep {
  /** `list`, `put`, `delete`, `get`, `eval` or `done`. */
  kind: string
  /** What `list` lists. */
  prefix?: string
  /** The object `put`, `delete` and `get` act on. */
  key?: string
  /** The metadata `put` writes. */
  metadata?: Record<string, string>
  /** The Lua text `eval` runs (its SHA1 is what `EVALSHA` names). */
  script?: string
  /** The keys `eval` passes (`KEYS`). */
  keys?: Array<string>
  /** The arguments `eval` passes (`ARGV`). */
  args?: Array<string>
  /**
   * The end of `done`: `accepted`, `refused` (the guard's own error) or
   * `driver` (the driver's error, classified).
   */
  verdict?: string
  /** The error of a `refused` or `driver` verdict. */
  error?: NativeError
}

/**
 * The class core gives a driver's error: `missing_table`,
 * `serialization`, `permission`, `unavailable` or `other`.
 */
export declare function guardFailureClass(failure: NativeDriverFailure): string
