// The addon's typings of src/guard_sql.rs, rendered from the Rust side by scripts/typings.js.
// Do not edit: change the Rust code, build, and run `node scripts/typings.js`.

import type { NativeDriverFailure } from './guard_step'

/** The step after the last statement of `slot` changed `changed` rows. */
export declare function guardSqlChanged(slot: number, changed: number): string

/** The step after the last statement of `slot` failed in the driver. */
export declare function guardSqlFailed(slot: number, failure: NativeDriverFailure): string

/**
 * The step after the last query of `slot` read `row` (its first
 * column as text; absent: no row).
 */
export declare function guardSqlRow(slot: number, row?: string | undefined | null): string

/**
 * Begins the check of `fence` for `resource` in `dialect` (`"sqlite"`:
 * `?` placeholders; `"postgres"`: `$1`) as `slot`; `in_transaction` is
 * whether the handle has a transaction open. Gives its first step.
 */
export declare function guardSqlStart(slot: number, dialect: string, resource: string, fence: bigint, inTransaction: boolean): string

/** The text of the statement numbered `n` in a step. */
export declare function guardSqlText(n: number): string
