// The addon's typings of src/guard_dynamo.rs, rendered from the Rust side by scripts/typings.js.
// Do not edit: change the Rust code, build, and run `node scripts/typings.js`.

import type { NativeError } from './guard'
import type { NativeDriverFailure } from './guard_step'

/**
 * One guarded DynamoDB transaction of `items` items of the caller's and
 * the register's.
 */
export declare class NativeDynamoCheck {
  /**
   * A guard of `fence` for `resource` in register table `table`, with
   * `items` items of the caller's in the same transaction.
   */
  constructor(table: string, resource: string, fence: bigint, items: number)
  /**
   * The first step (`transact`), or the end for bad input (`invalid`
   * before any call: a bad resource, an empty table name, over 99 items).
   */
  start(): NativeDynamoStep
  /**
   * Says that an attempt of the transaction got `status` as its answer
   * (none: no answer came); before the last attempt's outcome is
   * observed. Core decides whether it may have been written.
   */
  attempted(status?: number | undefined | null): void
  /** After the transaction was written. */
  written(): NativeDynamoStep
  /**
   * After the transaction was cancelled: each item's reason code in
   * order (`"None"` for an item that was fine; the register's last),
   * the register item's fence as returned (`null` when it was not; a
   * value that is not a string described), and the exception.
   */
  cancelled(codes: Array<string>, recorded: string | undefined | null, failure: NativeDriverFailure): NativeDynamoStep
  /**
   * After the register item was read: its fence (`null`: no item, or no
   * `fence`).
   */
  read(recorded?: string | undefined | null): NativeDynamoStep
  /** After a call failed otherwise, as the client reported. */
  failed(failure: NativeDriverFailure): NativeDynamoStep
}

/**
 * The DynamoDB guard's names and bound, from the core
 * (`tinystore::guard::dynamo_check`).
 */
export interface NativeDynamoGuardConstants {
  /** The register table unless the caller names another: `tinystore_fences`. */
  registerTable: string
  /** The most items of the caller's in one guarded transaction: 99. */
  maxItems: number
}

/** What lib/dynamodb.js does next, or the protocol's end. */
export interface NativeDynamoStep {
  /**
   * `transact` (the caller's items, then the register's put), `read`
   * (the register item, consistently) or `done`.
   */
  kind: string
  /** The register table of `transact` and `read`. */
  table?: string
  /** The register item's key (`resource`) of `transact` and `read`. */
  resource?: string
  /**
   * The register item's `fence` and the condition's `:fence` (40
   * digits) of `transact`.
   */
  fence?: string
  /** The condition's `:digits` (40, a number) of `transact`. */
  digits?: number
  /** The register put's `ConditionExpression` of `transact`. */
  condition?: string
  /**
   * The end of `done`: `accepted`, `refused` (the guard's own error) or
   * `driver` (the driver's error, classified).
   */
  verdict?: string
  /** The error of a `refused` or `driver` verdict. */
  error?: NativeError
}

/** The DynamoDB guard's names and bound. */
export declare function guardDynamoConstants(): NativeDynamoGuardConstants
