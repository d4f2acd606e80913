// The addon's typings of src/fence.rs, rendered from the Rust side by scripts/typings.js.
// Do not edit: change the Rust code, build, and run `node scripts/typings.js`.

/**
 * The 40-digit zero-padded text of a fence, which orders as text the way
 * fences order as numbers. Refuses a bigint below 0 or above 2^128-1.
 */
export declare function fenceText(fence: bigint): string

/**
 * Parses a fence's decimal with the core's strict parser: ASCII digits
 * only, leading zeros allowed, at most 2^128-1.
 */
export declare function parseFence(text: string): bigint
