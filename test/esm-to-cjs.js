/**
 * A Jest transform for the ES-module-only packages the service requires (jose): their files to
 * CommonJS with TypeScript's transpiler, class fields kept as they are written (ES2022 with
 * define semantics; with assign semantics TypeScript would set fields before `super()`).
 */
const { createHash } = require('node:crypto');
const ts = require('typescript');

const OPTIONS = {
  module: ts.ModuleKind.CommonJS,
  target: ts.ScriptTarget.ES2022,
  useDefineForClassFields: true,
  allowJs: true,
  sourceMap: false,
};

module.exports = {
  process(source, filename) {
    return {
      code: ts.transpileModule(source, { compilerOptions: OPTIONS, fileName: filename }).outputText,
    };
  },
  getCacheKey(source, filename) {
    return createHash('sha256')
      .update(`esm-to-cjs 1 ${ts.version} ${filename}\0${source}`)
      .digest('hex');
  },
};
