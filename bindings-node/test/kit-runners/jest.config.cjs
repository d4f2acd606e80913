// jest's configuration for the kit's fixture (jest.kit.cjs), run by
// ../kit-runners.test.mjs.
module.exports = {
  rootDir: __dirname,
  testMatch: ['<rootDir>/jest.kit.cjs'],
  testEnvironment: 'node',
}
