#!/usr/bin/env node
// Renders the typings of the addon from what napi-derive wrote while cargo
// built it (scripts/build.js sets the folder), so that the committed files
// can be checked against the Rust side: one typings/NAME.d.ts per
// src/NAME.rs that declares something for JavaScript (each importing the
// types it names from the others), and native.d.ts, which re-exports them
// all: what `import('../native')` sees.
//   node scripts/typings.js          rewrite native.d.ts and typings/
//   node scripts/typings.js --check  exit 1 when any of them differs
'use strict'
const { execFileSync } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')

const pkg = path.resolve(__dirname, '..')
const committed = path.join(pkg, 'native.d.ts')
/** The folder of the per-source-file typings, beside native.d.ts. */
const folder = 'typings'
const sources = path.join(pkg, 'src')

/** The file napi-derive wrote for the last build of the crate. */
function typedefFile() {
  const manifest = path.join(pkg, 'Cargo.toml')
  const out = execFileSync(process.env.CARGO || 'cargo', ['metadata', '--no-deps', '--format-version', '1', '--manifest-path', manifest], { encoding: 'utf8' })
  return path.join(JSON.parse(out).target_directory, 'napi-typedefs', 'tinystore-node')
}

function indent(text, by) {
  return text.split('\n').map(line => (line.trim() ? by + line.trim().replace(/^\*/, ' *') : '')).filter(Boolean).join('\n')
}

const head = (what) =>
  `// ${what}, rendered from the Rust side by scripts/typings.js.\n// Do not edit: change the Rust code, build, and run \`node scripts/typings.js\`.\n`

/**
 * Where each Rust item is defined: `struct NAME` / `enum NAME` (or a
 * class of a `*_class!` macro) and a top-level `fn name` (napi's camelCase name, as napi-derive gives it) of
 * each src/*.rs: the names of the files (without `.rs`) that define it.
 * @param {Map<string, string>} files a source file's name -> its text
 */
function definitions(files) {
  /** @type {Map<string, Set<string>>} */
  const where = new Map()
  const camel = name => name.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase())
  const add = (name, file) => where.set(name, (where.get(name) ?? new Set()).add(file))
  for (const [file, text] of files) {
    for (const m of text.matchAll(/^\s*pub(?:\([^)]*\))? (?:struct|enum) (\w+)/gm)) add(`type ${m[1]}`, file)
    // A class a macro makes: `acquiring_class!("doc", NAME, ...)`.
    for (const m of text.matchAll(/^\w+_class!\(\s*"(?:[^"\\]|\\.)*",\s*(\w+)/gm)) add(`type ${m[1]}`, file)
    for (const m of text.matchAll(/^pub(?:\([^)]*\))? (?:async )?fn (\w+)/gm)) add(`fn ${camel(m[1])}`, file)
  }
  return where
}

/** The Rust sources of the crate, by name without `.rs`. */
function rustSources() {
  const files = new Map()
  for (const name of fs.readdirSync(sources).filter(n => n.endsWith('.rs')).sort()) {
    files.set(name.slice(0, -3), fs.readFileSync(path.join(sources, name), 'utf8'))
  }
  return files
}

/**
 * The rendered typings for napi-derive's JSON lines and the crate's
 * sources: a map from each file's path in the package (`native.d.ts`,
 * `typings/NAME.d.ts`) to its text, items sorted by name in each.
 * @param {string} lines
 * @param {Map<string, string>} [files] the Rust sources (default: src/)
 * @returns {Map<string, string>}
 */
function render(lines, files = rustSources()) {
  const where = definitions(files)
  const items = lines.split('\n').filter(Boolean).map(line => JSON.parse(line))
  const classes = new Map()
  /** @type {[string, string, string][]} name, kind of lookup, text */
  const out = []
  for (const item of items) {
    if (item.kind === 'struct') {
      classes.set(item.name, { rust: item.original_name ?? item.name, doc: item.js_doc, members: classes.get(item.name)?.members ?? [] })
    } else if (item.kind === 'impl') {
      const entry = classes.get(item.name) ?? { rust: item.name, doc: '', members: [] }
      entry.members.push(item.def)
      classes.set(item.name, entry)
    }
  }
  for (const item of items) {
    if (item.kind === 'fn') out.push([item.name, `fn ${item.name}`, `${indent(item.js_doc, '')}\nexport declare ${item.def}`])
    if (item.kind === 'interface') {
      out.push([item.name, `type ${item.original_name ?? item.name}`, `${indent(item.js_doc, '')}\nexport interface ${item.name} {\n${indent(item.def, '  ')}\n}`])
    }
  }
  for (const [name, { rust, doc, members }] of classes) {
    out.push([name, `type ${rust}`, `${indent(doc, '')}\nexport declare class ${name} {\n${indent(members.join('\n'), '  ')}\n}`])
  }
  out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
  /** @type {Map<string, [string, string][]>} a source file -> its items */
  const byFile = new Map()
  /** @type {Map<string, string>} a declared name -> its source file */
  const home = new Map()
  for (const [name, lookup, text] of out) {
    const found = [...(where.get(lookup) ?? [])]
    if (found.length !== 1) {
      throw new Error(`typings: ${found.length ? `src/{${found.join(',')}}.rs all define` : 'no src/*.rs defines'} ${lookup} (declared as ${name})`)
    }
    const file = found[0]
    home.set(name, file)
    byFile.set(file, [...(byFile.get(file) ?? []), [name, text.replace(/^\n/, '')]])
  }
  const rendered = new Map()
  const names = [...byFile.keys()].sort()
  for (const file of names) {
    const declared = byFile.get(file) ?? []
    const body = declared.map(([, text]) => text).join('\n\n')
    /** @type {Map<string, Set<string>>} another file -> the names used from it */
    const used = new Map()
    for (const [word] of body.matchAll(/\b[A-Za-z_$][\w$]*\b/g)) {
      const from = home.get(word)
      if (from === undefined || from === file) continue
      used.set(from, (used.get(from) ?? new Set()).add(word))
    }
    const imports = [...used.keys()]
      .sort()
      .map(from => `import type { ${[...(used.get(from) ?? [])].sort().join(', ')} } from './${from}'\n`)
      .join('')
    const text = `${head(`The addon's typings of src/${file}.rs`)}\n${imports ? `${imports}\n` : ''}${body}\n`
    rendered.set(`${folder}/${file}.d.ts`, text)
  }
  const all = names.map(file => `export * from './${folder}/${file}'\n`).join('')
  rendered.set('native.d.ts', `${head("The addon's typings, one file per Rust source file in typings/")}\n${all}`)
  return rendered
}

/** The rendered typings of the last build, by path in the package. */
function rendered() {
  return render(fs.readFileSync(typedefFile(), 'utf8'))
}

/** The committed typings, by path in the package. */
function committedFiles() {
  const out = new Map()
  if (fs.existsSync(committed)) out.set('native.d.ts', fs.readFileSync(committed, 'utf8'))
  const dir = path.join(pkg, folder)
  if (fs.existsSync(dir)) {
    for (const name of fs.readdirSync(dir).sort()) out.set(`${folder}/${name}`, fs.readFileSync(path.join(dir, name), 'utf8'))
  }
  return out
}

module.exports = { render, rendered, committed, committedFiles, folder }

if (require.main === module) {
  const files = rendered()
  if (process.argv.includes('--check')) {
    const now = committedFiles()
    const differ = [...new Set([...files.keys(), ...now.keys()])].filter(file => files.get(file) !== now.get(file)).sort()
    if (differ.length > 0) {
      process.stderr.write(`${differ.join(', ')} differ${differ.length === 1 ? 's' : ''} from the Rust side; run \`node scripts/typings.js\`\n`)
      process.exit(1)
    }
  } else {
    const dir = path.join(pkg, folder)
    fs.mkdirSync(dir, { recursive: true })
    for (const name of fs.readdirSync(dir)) {
      if (!files.has(`${folder}/${name}`)) fs.rmSync(path.join(dir, name))
    }
    for (const [file, text] of files) fs.writeFileSync(path.join(pkg, file), text)
  }
}
