// @ts-check
import eslint from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/**
 * The layers of src/rest, as lint errors: core/ is plain TypeScript (no Nest, Express or
 * TypeORM), sql/ adds the database behind its port (no Nest or Express), http/ is the Nest and
 * Express side. Each layer imports only from the ones below it, and the REST layer from nothing
 * of the application (collections, database, config).
 */
const frameworks = (...names) =>
  names.map((name) => ({ regex: `^${name}(/|$)`, message: `not in this layer: ${name}` }));
const above = (...layers) =>
  layers.map((layer) => ({
    group: [`../${layer}`, `../${layer}/**`],
    message: `a lower layer of src/rest does not import ${layer}/`,
  }));
const application = {
  group: ['../../*', '!../../rest', '../../../*'],
  message: 'src/rest knows nothing of the application that uses it',
};
const layer = (files, patterns) => ({
  files,
  rules: { 'no-restricted-imports': ['error', { patterns: [...patterns, application] }] },
});

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'test-output/', 'eslint.config.mjs'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: { globals: { ...globals.node, ...globals.jest } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  layer(['src/rest/core/**'], [
    ...frameworks('@nestjs', 'express', 'typeorm', 'rxjs'),
    ...above('sql', 'http'),
  ]),
  layer(['src/rest/sql/**'], [...frameworks('@nestjs', 'express', 'rxjs'), ...above('http')]),
  layer(['src/rest/http/**'], [...frameworks('typeorm', 'mysql2', 'better-sqlite3')]),
  {
    files: ['src/database/**'],
    // `npm run seed` is a command like main.ts: it names the application's collections.
    ignores: ['src/database/seed.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['../*', '!../config', '!../rest', '../../*', '!../../config', '!../../rest'],
              message: 'database code knows no collection: entities come from their modules',
            },
          ],
        },
      ],
    },
  },
);
