#!/usr/bin/env node
// `tinystore`: the command line (written once, in Rust), run in this process
// by the addon; `npx tinystore serve DIR` serves a store until Ctrl-C.
'use strict'
const native = require('../lib/native')

process.exit(native.cliMain(['tinystore', ...process.argv.slice(2)]))
