#!/usr/bin/env node
// Makes the npm tarballs of a release from prebuilt addons:
//   node scripts/pack.js OUTDIR PLATFORM=ADDON...
// PLATFORM is one of napi-rs's platform names below (linux-x64-gnu,
// linux-arm64-gnu), ADDON that platform's built addon.
// - `tinystore`: the JS layer, typings (testing.d.ts: `tinystore/testing`;
//   native.d.ts and the typings/ it re-exports: the addon's),
//   bin, README and LICENSE; no tests, no Rust sources, no install script.
//   It names each platform package in `optionalDependencies`, so npm
//   installs the one for the machine.
// - `@tinystore/<PLATFORM>`: that platform's ADDON alone, with `os`, `cpu`
//   and `libc` so that npm installs it on that platform only (napi-rs's
//   convention; lib/native.js requires it by the same name).
'use strict'
const { execFileSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const typings = require('./typings')

const pkg = path.resolve(__dirname, '..')
const root = path.resolve(pkg, '..')
/** What npm matches a platform package against, per platform name. */
const PLATFORMS = {
  'linux-x64-gnu': { os: ['linux'], cpu: ['x64'], libc: ['glibc'] },
  'linux-arm64-gnu': { os: ['linux'], cpu: ['arm64'], libc: ['glibc'] },
}
const [outArg, ...addonArgs] = process.argv.slice(2)
const platforms = addonArgs.map(arg => {
  const [name, addon] = arg.split(/=(.*)/s)
  if (!(name in PLATFORMS) || !addon) {
    process.stderr.write(`pack.js: ${arg} is not PLATFORM=ADDON with PLATFORM one of ${Object.keys(PLATFORMS).join(', ')}\n`)
    process.exit(2)
  }
  return { name, addon, package: `@tinystore/${name}`, file: `tinystore.${name}.node`, ...PLATFORMS[name] }
})
if (!outArg || platforms.length === 0) {
  process.stderr.write('usage: node scripts/pack.js OUTDIR PLATFORM=ADDON...\n')
  process.exit(2)
}
const out = path.resolve(outArg)
const source = JSON.parse(fs.readFileSync(path.join(pkg, 'package.json'), 'utf8'))

/** Copies `files` (paths relative to `from`) into `to`. */
function copy(from, files, to) {
  for (const file of files) {
    fs.mkdirSync(path.dirname(path.join(to, file)), { recursive: true })
    fs.copyFileSync(path.join(from, file), path.join(to, file))
  }
}

/** Writes `manifest` and `files` into a fresh folder and packs it into `out`; gives the tarball's path. */
function pack(manifest, place) {
  const stage = fs.mkdtempSync(path.join(os.tmpdir(), 'tinystore-pack-'))
  try {
    place(stage)
    fs.writeFileSync(path.join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`)
    const json = execFileSync('npm', ['pack', '--json', '--pack-destination', out], { cwd: stage, encoding: 'utf8' })
    return path.join(out, JSON.parse(json)[0].filename)
  } finally {
    fs.rmSync(stage, { recursive: true, force: true })
  }
}

fs.mkdirSync(out, { recursive: true })
const common = {
  version: source.version,
  license: source.license,
  engines: source.engines,
}
const main = pack(
  {
    name: source.name,
    description: source.description,
    ...common,
    main: source.main,
    types: source.types,
    exports: source.exports,
    bin: source.bin,
    files: ['lib/', 'bin/', 'index.d.ts', 'testing.d.ts', 'native.d.ts', `${typings.folder}/`],
    optionalDependencies: Object.fromEntries(platforms.map(platform => [platform.package, source.version])),
    // The guard's drivers, which it never imports: optional.
    peerDependencies: source.peerDependencies,
    peerDependenciesMeta: source.peerDependenciesMeta,
  },
  stage => {
    const lib = fs.readdirSync(path.join(pkg, 'lib')).map(name => path.join('lib', name))
    const typed = fs.readdirSync(path.join(pkg, typings.folder)).map(name => path.join(typings.folder, name))
    copy(pkg, [...lib, ...Object.values(source.bin), 'index.d.ts', 'testing.d.ts', 'native.d.ts', ...typed, 'README.md'], stage)
    copy(root, ['LICENSE'], stage)
  },
)
const natives = platforms.map(platform =>
  pack(
    {
      name: platform.package,
      description: `The prebuilt addon of tinystore for ${platform.os[0]}-${platform.cpu[0]} (${platform.libc[0]})`,
      ...common,
      os: platform.os,
      cpu: platform.cpu,
      libc: platform.libc,
      main: platform.file,
      files: [platform.file],
    },
    stage => {
      fs.copyFileSync(platform.addon, path.join(stage, platform.file))
      fs.writeFileSync(
        path.join(stage, 'README.md'),
        `# ${platform.package}\n\nThe prebuilt addon of the npm package \`tinystore\` for this platform; install \`tinystore\`, which depends on it.\n`,
      )
      copy(root, ['LICENSE'], stage)
    },
  ),
)
process.stdout.write(`${[main, ...natives].join('\n')}\n`)
