// The addon's typings of src/guard_versioned.rs, rendered from the Rust side by scripts/typings.js.
// Do not edit: change the Rust code, build, and run `node scripts/typings.js`.

import type { NativeError } from './guard'
import type { NativeDriverFailure } from './guard_step'

/** One guarded put of a fence to one object. */
export declare class NativeVersionedCheck {
  /**
   * A guarded put of `fence` to the object `resource` (`BUCKET/NAME` or
   * `CONTAINER/NAME`) on `store` (`gcs` or `azure`).
   */
  constructor(store: string, resource: string, fence: bigint)
  /** The first step (`read`), or the end for a bad resource. */
  start(): NativeVersionedStep
  /**
   * After a read found the object at `version`, with its fence metadata
   * (`null` when it has none).
   */
  found(version: string, fence?: string | undefined | null): NativeVersionedStep
  /** After a read found no object. */
  absent(): NativeVersionedStep
  /**
   * Says that an attempt of the put last given got `status` as its answer
   * (none: no answer came); before the put's outcome is observed. Core
   * decides whether it may have been written.
   */
  attempted(status?: number | undefined | null): void
  /** After the put landed. */
  written(): NativeVersionedStep
  /**
   * After the put's condition failed (412, or Azure's 409
   * `BlobAlreadyExists`).
   */
  conditionFailed(): NativeVersionedStep
  /** After a read or a put failed otherwise, as the client reported. */
  failed(failure: NativeDriverFailure): NativeVersionedStep
}

/** The versioned guard's names and bound, from the core. */
export interface NativeVersionedGuardConstants {
  /** The metadata key of the fence on GCS: `tinystore-fence`. */
  gcsMetadataKey: string
  /** The metadata key of the fence on Azure: `tinystore_fence`. */
  azureMetadataKey: string
  /** How many conditional puts a guarded put makes in all: 5. */
  maxTries: number
}

/** What lib/gcs.js or lib/azure.js does next, or the protocol's end. */
export interface NativeVersionedStep {
  /** `read` (the object's version and metadata), `put` or `done`. */
  kind: string
  /**
   * The version `put` is conditional on (a generation or an ETag, as the
   * read gave it); absent: the object must not exist yet.
   */
  version?: string
  /** The metadata key `put` sets to `fence`. */
  metadataKey?: string
  /** The fence `put` records, 40 digits. */
  fence?: string
  /**
   * The end of `done`: `accepted`, `refused` (the guard's own error) or
   * `driver` (the driver's error, classified).
   */
  verdict?: string
  /** The error of a `refused` or `driver` verdict. */
  error?: NativeError
}

/**
 * Checks the caller's own metadata names for a guarded put to `resource`
 * on `store` (`gcs` or `azure`): the guard's own key, in any case and
 * spelling, is `invalid`.
 */
export declare function guardVersionedCheckMetadata(store: string, resource: string, keys: Array<string>): void

/** The versioned guard's names and bound. */
export declare function guardVersionedConstants(): NativeVersionedGuardConstants
