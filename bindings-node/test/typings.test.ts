// The committed typings match the Rust side: native.d.ts and the files of
// typings/ it re-exports are what the build of the addon renders, and
// every class, method and getter the addon and the JS layer export at run
// time is declared.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'
import ts from 'typescript'
import * as tinystore from 'tinystore'
import * as testing from 'tinystore/testing'

const pkg = path.resolve(__dirname, '..')
// eslint-disable-next-line @typescript-eslint/no-require-imports
const typings: { rendered(): Map<string, string>; committedFiles(): Map<string, string>; folder: string } = require(
  path.join(pkg, 'scripts', 'typings.js'),
)
// eslint-disable-next-line @typescript-eslint/no-require-imports
const native: Record<string, unknown> = require(path.join(pkg, 'tinystore.node'))

/** The names a namespace's block declares: functions, constants and what it re-exports. */
function namespaceMembers(node: ts.ModuleDeclaration): Set<string> {
  const out = new Set<string>()
  if (!node.body || !ts.isModuleBlock(node.body)) return out
  for (const f of node.body.statements) {
    const exported = ts.canHaveModifiers(f) && ts.getModifiers(f)?.some(m => m.kind === ts.SyntaxKind.ExportKeyword)
    if (ts.isFunctionDeclaration(f) && f.name && exported) out.add(f.name.text)
    if (ts.isVariableStatement(f)) for (const d of f.declarationList.declarations) if (ts.isIdentifier(d.name)) out.add(d.name.text)
    if (ts.isExportDeclaration(f) && f.exportClause && ts.isNamedExports(f.exportClause)) {
      for (const e of f.exportClause.elements) out.add(e.name.text)
    }
  }
  return out
}

/** Inner namespaces (`namespace guard.s3`) by their dotted name, with their members. */
const nested = new Map<string, Set<string>>()

/** The exported names of a .d.ts, and each class's members. */
function declared(file: string): Map<string, Set<string>> {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true)
  const out = new Map<string, Set<string>>()
  for (const node of source.statements) {
    const exported = ts.canHaveModifiers(node) && ts.getModifiers(node)?.some(m => m.kind === ts.SyntaxKind.ExportKeyword)
    if (!exported) continue
    if (ts.isClassDeclaration(node) && node.name) {
      const members = new Set<string>()
      for (const m of node.members) {
        if (!m.name || !ts.isIdentifier(m.name)) continue
        const isStatic = ts.canHaveModifiers(m) && ts.getModifiers(m)?.some(k => k.kind === ts.SyntaxKind.StaticKeyword)
        members.add(isStatic ? `static ${m.name.text}` : m.name.text)
      }
      out.set(node.name.text, members)
    } else if (ts.isFunctionDeclaration(node) && node.name) {
      out.set(node.name.text, new Set())
    } else if (ts.isModuleDeclaration(node) && ts.isIdentifier(node.name)) {
      // A namespace (guard, http): its functions, constants and inner
      // namespaces (`namespace guard.s3` adds s3 to guard) are the object's
      // members.
      const members = out.get(node.name.text) ?? new Set<string>()
      if (node.body && ts.isModuleBlock(node.body)) {
        for (const f of node.body.statements) {
          if (ts.isFunctionDeclaration(f) && f.name) members.add(f.name.text)
          if (ts.isVariableStatement(f)) for (const d of f.declarationList.declarations) if (ts.isIdentifier(d.name)) members.add(d.name.text)
        }
      } else if (node.body && ts.isModuleDeclaration(node.body) && ts.isIdentifier(node.body.name)) {
        members.add(node.body.name.text)
        nested.set(`${node.name.text}.${node.body.name.text}`, namespaceMembers(node.body))
      }
      out.set(node.name.text, members)
    } else if (ts.isVariableStatement(node)) {
      for (const d of node.declarationList.declarations) if (ts.isIdentifier(d.name)) out.set(d.name.text, new Set())
    }
  }
  return out
}

/** The own and inherited members of a class's prototype, but Object's, and its own static methods (`static NAME`). */
function members(made: Function): Set<string> {
  const out = new Set<string>()
  for (let proto = made.prototype; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const name of Object.getOwnPropertyNames(proto)) if (name !== 'constructor') out.add(name)
  }
  for (const name of Object.getOwnPropertyNames(made)) {
    if (typeof (made as unknown as Record<string, unknown>)[name] === 'function') out.add(`static ${name}`)
  }
  return out
}

test('native.d.ts and typings/ are what the Rust side renders', () => {
  const rendered = typings.rendered()
  assert.ok(rendered.size > 2, 'the typings are split per Rust source file')
  assert.deepEqual(typings.committedFiles(), rendered, 'run `node scripts/typings.js` after changing the Rust side')
})

test('native.d.ts re-exports typings/, which declare exactly what the addon exports', () => {
  const files = [...typings.committedFiles().keys()].filter(file => file !== 'native.d.ts')
  const reexported = [...readFileSync(path.join(pkg, 'native.d.ts'), 'utf8').matchAll(/^export \* from '\.\/(.+)'$/gm)].map(m => `${m[1]}.d.ts`)
  assert.deepEqual(reexported.sort(), files.sort())
  const decl = new Map<string, Set<string>>()
  for (const file of files) {
    for (const [name, own] of declared(path.join(pkg, file))) {
      assert.ok(!decl.has(name), `${name} is declared once`)
      decl.set(name, own)
    }
  }
  const runtime = Object.keys(native).sort()
  const values = [...decl.keys()].sort()
  assert.deepEqual(runtime, values)
  for (const [name, declaredMembers] of decl) {
    const value = native[name]
    if (typeof value === 'function' && declaredMembers.size > 0) {
      assert.deepEqual([...members(value as Function)].sort(), [...declaredMembers].filter(m => m !== 'constructor').sort(), name)
    }
  }
})

/** Fields set by constructors rather than on prototypes. */
const instanceFields = new Set(['code', 'limit', 'resource', 'fence', 'largest'])

test('index.d.ts declares exactly what the package exports', () => {
  const decl = declared(path.join(pkg, 'index.d.ts'))
  assert.deepEqual(Object.keys(tinystore).filter(k => k !== 'default').sort(), [...decl.keys()].sort())
  for (const [name, declaredMembers] of decl) {
    const value = (tinystore as Record<string, unknown>)[name]
    if (typeof value === 'function' && declaredMembers.size > 0) {
      const runtime = members(value as Function)
      for (const m of declaredMembers) {
        if (m === 'constructor') continue
        if (instanceFields.has(m)) continue
        assert.ok(runtime.has(m), `${name}.${m} is declared and exists`)
      }
    }
    if (typeof value === 'object' && value !== null && declaredMembers.size > 0) {
      assert.deepEqual(Object.keys(value).sort(), [...declaredMembers].sort(), `${name}'s functions`)
    }
  }
})

test("index.d.ts declares exactly what guard.s3 exports", () => {
  declared(path.join(pkg, 'index.d.ts'))
  const s3 = nested.get('guard.s3')
  assert.ok(s3, 'namespace guard.s3 is declared')
  assert.deepEqual(Object.keys(tinystore.guard.s3).sort(), [...s3].sort())
})

test("index.d.ts declares exactly what guard.redis exports", () => {
  declared(path.join(pkg, 'index.d.ts'))
  const redis = nested.get('guard.redis')
  assert.ok(redis, 'namespace guard.redis is declared')
  assert.deepEqual(Object.keys(tinystore.guard.redis).sort(), [...redis].sort())
})

for (const name of ['dynamodb', 'gcs', 'azure'] as const) {
  test(`index.d.ts declares exactly what guard.${name} exports`, () => {
    declared(path.join(pkg, 'index.d.ts'))
    const members = nested.get(`guard.${name}`)
    assert.ok(members, `namespace guard.${name} is declared`)
    assert.deepEqual(Object.keys(tinystore.guard[name]).sort(), [...members].sort())
  })
}

test('testing.d.ts declares exactly what tinystore/testing exports', () => {
  const decl = declared(path.join(pkg, 'testing.d.ts'))
  assert.deepEqual(Object.keys(testing).filter(k => k !== 'default').sort(), [...decl.keys()].sort())
  for (const [name, declaredMembers] of decl) {
    const value = (testing as Record<string, unknown>)[name]
    if (typeof value !== 'function' || declaredMembers.size === 0) continue
    const runtime = members(value as Function)
    for (const m of declaredMembers) if (m !== 'constructor') assert.ok(runtime.has(m), `${name}.${m} is declared and exists`)
    assert.deepEqual([...runtime].sort(), [...declaredMembers].filter(m => m !== 'constructor').sort(), `${name}'s members`)
  }
})
