'use strict'
// Loads the addon: the one built from source beside the package
// (scripts/build.js, in a tinystore checkout) when there is one, else the
// prebuilt one from the platform package npm installed with this one
// (an optional dependency per platform: @tinystore/<platform>, e.g.
// @tinystore/linux-x64-gnu or @tinystore/linux-arm64-gnu).
const fs = require('node:fs')
const path = require('node:path')

const local = path.join(__dirname, '..', 'tinystore.node')

/** The platform package's name for this machine, as napi-rs names them. */
function platformPackage() {
  const { platform, arch } = process
  if (platform !== 'linux') return `@tinystore/${platform}-${arch}`
  // glibc or musl: a glibc Node reports the glibc version it runs with.
  const header = /** @type {{ glibcVersionRuntime?: string }} */ (
    /** @type {any} */ (process.report?.getReport())?.header ?? {}
  )
  return `@tinystore/linux-${arch}-${header.glibcVersionRuntime ? 'gnu' : 'musl'}`
}

/** @returns {typeof import('../native')} */
function load() {
  if (fs.existsSync(local)) {
    try {
      return require(local)
    } catch (err) {
      throw new Error(`tinystore: cannot load the addon ${local}: ${err}; rebuild it with \`node scripts/build.js\` in the package`)
    }
  }
  const name = platformPackage()
  try {
    return require(name)
  } catch (err) {
    throw new Error(
      `tinystore: no prebuilt addon for this machine: ${name} is not installed or does not load (${err}). ` +
        'npm installs it with tinystore on the platforms it is published for (linux-x64-gnu, linux-arm64-gnu); check that optional ' +
        'dependencies were not omitted (--omit=optional). Elsewhere build the addon from source: with cargo on the PATH, ' +
        'run `npm install <tinystore checkout>/bindings-node`, whose install script builds it.',
    )
  }
}

module.exports = load()
