// The addon's typings of src/error.rs, rendered from the Rust side by scripts/typings.js.
// Do not edit: change the Rust code, build, and run `node scripts/typings.js`.

/** One code of the core's table. */
export interface NativeCode {
  /** The code, as on the wire: `lease_lost`. */
  code: string
  /** The class of its errors: `LeaseLostError`. */
  className: string
}

/** The core's table of error codes, in its order, with each one's class. */
export declare function errorCodes(): Array<NativeCode>
