#!/usr/bin/env node
// The install script of the package in a tinystore checkout (the published
// package has none: it brings a prebuilt addon): builds the addon from
// source with cargo and puts it beside the package as tinystore.node. Needs
// no npm package and downloads nothing prebuilt. Set CARGO to use another
// cargo, TINYSTORE_NODE_PROFILE=dev for a debug build, or
// TINYSTORE_NODE_ADDON=FILE to put an addon already built (`make dist-node`'s)
// in place instead of building.
'use strict'
const { execFileSync } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')

const pkg = path.resolve(__dirname, '..')
const dest = path.join(pkg, 'tinystore.node')

/** Puts `built` in place: copy then rename, so a process that loaded the old addon keeps working. */
function install(built) {
  const partial = `${dest}.${process.pid}.tmp`
  fs.copyFileSync(built, partial)
  fs.renameSync(partial, dest)
  process.stderr.write(`tinystore: ${path.relative(process.cwd(), dest) || dest} is in place (from ${built})\n`)
}

const prebuilt = process.env.TINYSTORE_NODE_ADDON
if (prebuilt) {
  if (!fs.existsSync(prebuilt)) throw new Error(`tinystore: TINYSTORE_NODE_ADDON names ${prebuilt}, which does not exist`)
  install(prebuilt)
  process.exit(0)
}
const manifest = path.join(pkg, 'Cargo.toml')
const cargo = process.env.CARGO || 'cargo'
const profile = process.env.TINYSTORE_NODE_PROFILE === 'dev' ? 'dev' : 'release'

function run(args, env) {
  return execFileSync(cargo, args, { cwd: pkg, env, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' })
}

// The target folder cargo uses (CARGO_TARGET_DIR or the workspace's).
let metadata
try {
  metadata = JSON.parse(run(['metadata', '--no-deps', '--format-version', '1', '--manifest-path', manifest], process.env))
} catch (err) {
  throw new Error(
    `tinystore: cannot read the cargo workspace of ${pkg}. The package builds from the tinystore source tree: ` +
      'install it by its path in the tree (npm links a folder by default; --install-links copies it away from the tree), ' +
      `with cargo on the PATH or in $CARGO. ${err instanceof Error ? err.message : err}`,
  )
}
const target = metadata.target_directory

// napi-derive writes the native module's typings here; the tests compare
// them with the committed native.d.ts.
const typedefs = path.join(target, 'napi-typedefs')
fs.mkdirSync(typedefs, { recursive: true })
const env = { ...process.env, NAPI_TYPE_DEF_TMP_FOLDER: typedefs }
process.stderr.write(`tinystore: cargo build --profile ${profile} -p tinystore-node\n`)
run(['build', '--profile', profile, '-p', 'tinystore-node', '--manifest-path', manifest], env)

const out = path.join(target, profile === 'dev' ? 'debug' : 'release')
const built = ['libtinystore_node.so', 'libtinystore_node.dylib', 'tinystore_node.dll']
  .map(name => path.join(out, name))
  .find(file => fs.existsSync(file))
if (!built) {
  throw new Error(`tinystore: cargo built no addon in ${out}`)
}
install(built)
