'use strict'
// Loads the addon that scripts/build.js built beside the package.
const path = require('node:path')

const file = path.join(__dirname, '..', 'tinystore.node')

/** @type {typeof import('../native')} */
let native
try {
  native = require(file)
} catch (err) {
  throw new Error(`tinystore: cannot load the addon ${file}; build it with \`node scripts/build.js\` in the package (npm install runs it): ${err}`)
}

module.exports = native
