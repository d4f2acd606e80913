// The addon's typings of src/guard.rs, rendered from the Rust side by scripts/typings.js.
// Do not edit: change the Rust code, build, and run `node scripts/typings.js`.

/**
 * A core error as a value: its code, its message, and for `stale` the
 * resource and fences it carries.
 */
export interface NativeError {
  code: string
  message: string
  stale?: NativeStale
}

/**
 * The object-storage guard's names and bound, from the core
 * (`tinystore::guard::object`).
 */
export interface NativeObjectGuardConstants {
  /** The metadata key that holds an object's fence: `tinystore-fence`. */
  metadataKey: string
  /** The metadata key of a guarded delete's tombstone: `tinystore-deleted`. */
  tombstoneKey: string
  /**
   * How many times a guarded read lists in all when the object it
   * lists is deleted before its get.
   */
  maxTries: number
}

/** What a `stale` error is about. */
export interface NativeStale {
  resource: string
  fence: bigint
  largest: bigint
}

/**
 * The statement that makes `tinystore_fences` if it is missing, for
 * `dialect` (`"sqlite"` or `"postgres"`).
 */
export declare function guardMigration(dialect: string): string

/** The object-storage guard's names and bound. */
export declare function guardObjectConstants(): NativeObjectGuardConstants
