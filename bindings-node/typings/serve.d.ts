// The addon's typings of src/serve.rs, rendered from the Rust side by scripts/typings.js.
// Do not edit: change the Rust code, build, and run `node scripts/typings.js`.

/** A store served on its Unix socket by this process until `close`. */
export declare class NativeServer {
  /** The path of the socket it serves on. */
  get socket(): string
  /**
   * Stops serving cleanly: leases released, waiters told `closed`, the
   * socket removed. Idempotent.
   */
  close(): Promise<void>
}

/**
 * Runs the `tinystore` command line on `args` (the program's name first)
 * on this thread until it ends, and gives its exit status. For a process
 * that runs only the command (the package's `bin`): SIGINT and SIGTERM get
 * their default action back first, so that the command's own handling
 * (`serve` stops cleanly) is the only one. Node's handlers, which the
 * command's would call in turn, re-raise the signal and never return.
 */
export declare function cliMain(args: Array<string>): number

/**
 * Serves the store directory `dir` (made if missing) on its socket so
 * that other processes' `open(dir)` reach it.
 */
export declare function serveStore(dir: string): Promise<NativeServer>
