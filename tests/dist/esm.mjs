// ESM, from the package installed beside this file: every value its
// index.d.ts exports (function, class, const) is a named export of
// 'tinystore', the same object `require` gives. Prints the names checked.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const typings = readFileSync(new URL('node_modules/tinystore/index.d.ts', import.meta.url), 'utf8')
const declared = [...typings.matchAll(/^export declare (?:function|class|const) (\w+)/gm)].map(m => m[1])
if (declared.length < 20) throw new Error(`index.d.ts declares only ${declared.length} values: ${declared}`)
const esm = await import('tinystore')
const cjs = require('tinystore')
const missing = declared.filter(name => !(name in esm) || esm[name] !== cjs[name])
if (missing.length) throw new Error(`named ESM exports missing or different: ${missing.join(', ')}`)
console.log(`ESM: all ${declared.length} values of index.d.ts import by name: ${declared.join(' ')}`)
