#!/usr/bin/env node
/**
 * `npm start`'s first step: `npm run build` only when the build is missing or older than what it
 * is built from (a file under src/, or the build's settings: package.json, package-lock.json,
 * tsconfig*.json, nest-cli.json). Otherwise it says the build is up to date and starts nothing.
 */
const { spawnSync } = require('node:child_process');
const { existsSync, readdirSync, statSync } = require('node:fs');
const { join } = require('node:path');

const INPUTS = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'nest-cli.json',
];

/** The newest modification time of the files under `dir`, with the file. */
function newest(dir, found = { path: undefined, mtimeMs: 0 }) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest(path, found);
    else if (entry.isFile()) {
      const { mtimeMs } = statSync(path);
      if (mtimeMs > found.mtimeMs) Object.assign(found, { path, mtimeMs });
    }
  }
  return found;
}

/** Why `root` needs a build (a sentence), or undefined when dist/main.js is newer than its inputs. */
function staleReason(root) {
  const main = join(root, 'dist', 'main.js');
  if (!existsSync(main)) return 'dist/main.js is missing';
  const built = statSync(main).mtimeMs;
  const found = newest(join(root, 'src'));
  for (const name of INPUTS) {
    const path = join(root, name);
    if (!existsSync(path)) continue;
    const { mtimeMs } = statSync(path);
    if (mtimeMs > found.mtimeMs) Object.assign(found, { path, mtimeMs });
  }
  if (found.mtimeMs <= built) return undefined;
  return `${found.path.slice(root.length + 1)} is newer than dist/main.js`;
}

if (require.main === module) {
  const root = join(__dirname, '..');
  const reason = staleReason(root);
  if (!reason) {
    console.log('The build (dist/) is up to date.');
  } else {
    console.log(`Building: ${reason}.`);
    const run = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
    if (run.status !== 0) process.exit(run.status ?? 1);
  }
}

module.exports = { staleReason };
