#!/usr/bin/env node
// Renders native.d.ts, the typings of the addon, from what napi-derive wrote
// while cargo built it (scripts/build.js sets the folder), so that the
// committed file can be checked against the Rust side.
//   node scripts/typings.js          rewrite native.d.ts
//   node scripts/typings.js --check  exit 1 when native.d.ts differs
'use strict'
const { execFileSync } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')

const pkg = path.resolve(__dirname, '..')
const committed = path.join(pkg, 'native.d.ts')

/** The file napi-derive wrote for the last build of the crate. */
function typedefFile() {
  const manifest = path.join(pkg, 'Cargo.toml')
  const out = execFileSync(process.env.CARGO || 'cargo', ['metadata', '--no-deps', '--format-version', '1', '--manifest-path', manifest], { encoding: 'utf8' })
  return path.join(JSON.parse(out).target_directory, 'napi-typedefs', 'tinystore-node')
}

function indent(text, by) {
  return text.split('\n').map(line => (line.trim() ? by + line.trim().replace(/^\*/, ' *') : '')).filter(Boolean).join('\n')
}

/** The .d.ts text for napi-derive's JSON lines, items sorted by name. */
function render(lines) {
  const items = lines.split('\n').filter(Boolean).map(line => JSON.parse(line))
  const classes = new Map()
  const out = []
  for (const item of items) {
    if (item.kind === 'struct') {
      classes.set(item.name, { doc: item.js_doc, members: classes.get(item.name)?.members ?? [] })
    } else if (item.kind === 'impl') {
      const entry = classes.get(item.name) ?? { doc: '', members: [] }
      entry.members.push(item.def)
      classes.set(item.name, entry)
    }
  }
  for (const item of items) {
    if (item.kind === 'fn') out.push([item.name, `${indent(item.js_doc, '')}\nexport declare ${item.def}`])
    if (item.kind === 'interface') out.push([item.name, `${indent(item.js_doc, '')}\nexport interface ${item.name} {\n${indent(item.def, '  ')}\n}`])
  }
  for (const [name, { doc, members }] of classes) {
    out.push([name, `${indent(doc, '')}\nexport declare class ${name} {\n${indent(members.join('\n'), '  ')}\n}`])
  }
  out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
  const head = '// The addon\'s typings, rendered from the Rust side by scripts/typings.js.\n// Do not edit: change the Rust code, build, and run `node scripts/typings.js`.\n'
  return `${head}\n${out.map(([, text]) => text.replace(/^\n/, '')).join('\n\n')}\n`
}

/** The rendered typings of the last build. */
function rendered() {
  return render(fs.readFileSync(typedefFile(), 'utf8'))
}

module.exports = { render, rendered, committed }

if (require.main === module) {
  const text = rendered()
  if (process.argv.includes('--check')) {
    if (fs.readFileSync(committed, 'utf8') !== text) {
      process.stderr.write('native.d.ts differs from the Rust side; run `node scripts/typings.js`\n')
      process.exit(1)
    }
  } else {
    fs.writeFileSync(committed, text)
  }
}
