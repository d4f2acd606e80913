// vitest's configuration for the kit's fixtures (vitest-*.kit.mjs), run by
// ../kit-runners.test.mjs; `--globals` is given on the command line for
// vitest-globals.kit.mjs.
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export default {
  test: {
    root: path.dirname(fileURLToPath(import.meta.url)),
    include: ['vitest-*.kit.mjs'],
  },
}
