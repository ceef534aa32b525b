// @ts-check
import eslint from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/**
 * The layers of src/rest, as lint errors: core/ is plain TypeScript (no Nest, Express or
 * TypeORM); db/ is the database runtime (connections, sessions, transactions, replicas, Galera
 * nodes, driver errors: no Nest, Express, nor anything of records); sql/ is the SQL of records,
 * over db/'s port (no Nest or Express); http/ is the Nest and Express side. Each layer imports
 * only from the ones below it, and the REST layer from nothing of the application (collections,
 * database, config).
 */
const frameworks = (...names) =>
  names.map((name) => ({ regex: `^${name}(/|$)`, message: `not in this layer: ${name}` }));
const above = (depth, ...layers) =>
  layers.map((layer) => {
    const up = '../'.repeat(depth + 1);
    return {
      group: [`${up}${layer}`, `${up}${layer}/**`],
      message: `a lower layer of src/rest does not import ${layer}/`,
    };
  });
/**
 * src/ seen from a file `depth` folders below src/rest/<layer>/ (0: directly in the layer): the
 * REST layer imports nothing of it but src/rest itself.
 */
const application = (depth) => {
  const up = '../'.repeat(depth + 2);
  return {
    group: [`${up}*`, `!${up}rest`, `${up}../*`],
    message: 'src/rest knows nothing of the application that uses it',
  };
};
/**
 * The folders of src/ that are not collections. Every other folder is a collection (emails,
 * marbles, phone-numbers, movies, and any added beside them): it may import these, never another
 * collection nor the application's own files (app.module, setup). A new shared folder joins
 * this list.
 */
const SHARED = [
  'rest',
  'config',
  'database',
  'users',
  'genres',
  'observability',
  'health',
  // The change feed, which the webhooks deliver.
  'events',
];
const collections = {
  files: ['src/*/**/*.ts'],
  ignores: SHARED.map((folder) => `src/${folder}/**`),
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            group: ['../*', ...SHARED.map((folder) => `!../${folder}`)],
            message: `a collection imports no other collection, only the shared folders (${SHARED.join(', ')})`,
          },
        ],
      },
    ],
  },
};
/**
 * The rules of one layer of src/rest (`core`, `sql`, `http`), for its files directly in it and in
 * its subfolders (http/openapi/, http/browsable/, ...): `patterns` by depth.
 */
const layer = (name, patterns) =>
  [0, 1].map((depth) => ({
    files: depth === 0 ? [`src/rest/${name}/*.ts`] : [`src/rest/${name}/*/**/*.ts`],
    rules: {
      'no-restricted-imports': ['error', { patterns: [...patterns(depth), application(depth)] }],
    },
  }));

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
  collections,
  ...layer('core', (depth) => [
    ...frameworks('@nestjs', 'express', 'typeorm', 'rxjs'),
    ...above(depth, 'db', 'sql', 'http'),
  ]),
  ...layer('db', (depth) => [
    ...frameworks('@nestjs', 'express', 'rxjs'),
    ...above(depth, 'core', 'sql', 'http'),
  ]),
  ...layer('sql', (depth) => [
    ...frameworks('@nestjs', 'express', 'rxjs'),
    ...above(depth, 'http'),
  ]),
  ...layer('http', () => frameworks('typeorm', 'mysql2', 'better-sqlite3')),
  {
    files: ['src/database/**'],
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
