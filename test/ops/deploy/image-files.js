/**
 * Files for test/ops/deploy/start-sequence.js: the working tree's sources as git lists them, copied as
 * the image's build context would be; the Dockerfile read by stage and its exec-form CMD; the
 * size of an installed tree.
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '../../..');

/** The working tree's files that git tracks or would track (not ignored), as they are now. */
function sourceFiles() {
  const out = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (out.status !== 0) throw new Error(`git ls-files failed: ${out.stderr}`);
  // A checkout whose node_modules is a link (a git worktree sharing another's) lists it as a file:
  // it is no source, as .dockerignore says.
  return [...new Set(out.stdout.split('\0').filter((f) => f && f !== 'node_modules'))];
}

function copyTree(files, to) {
  let copied = 0;
  for (const file of files) {
    const from = path.join(ROOT, file);
    let stat;
    try {
      stat = fs.lstatSync(from);
    } catch {
      continue; // deleted in the working tree but not yet in the index
    }
    if (!stat.isFile() && !stat.isSymbolicLink()) continue;
    fs.mkdirSync(path.dirname(path.join(to, file)), { recursive: true });
    fs.cpSync(from, path.join(to, file), { verbatimSymlinks: true });
    copied++;
  }
  return copied;
}

/** The Dockerfile's instructions, continuation lines joined and comments dropped, by stage. */
function dockerfileStages() {
  const text = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\r?\n/g, ' ');
  const stages = {};
  let current;
  for (const line of text.split(/\r?\n/).map((l) => l.trim())) {
    if (line === '' || line.startsWith('#')) continue;
    const from = /^FROM\s+\S+(?:\s+AS\s+(\S+))?/i.exec(line);
    if (from) stages[(current = from[1] || 'final')] = [];
    else if (current) stages[current].push(line);
  }
  return stages;
}

/** The exec-form argv of the Dockerfile's (last) CMD, or of its HEALTHCHECK's CMD. */
function dockerfileArgv(instruction) {
  const text = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\r?\n/g, ' ');
  const pattern = new RegExp(`^\\s*${instruction}\\s`, 'i');
  const line = text
    .split(/\r?\n/)
    .filter((l) => pattern.test(l))
    .pop();
  if (!line) throw new Error(`the Dockerfile has no ${instruction}`);
  return JSON.parse(line.slice(line.indexOf('[')));
}

/** Size of a directory tree in bytes (files as stored, hard links once). */
function treeBytes(dir) {
  const seen = new Set();
  let total = 0;
  const walk = (at) => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      const stat = fs.lstatSync(full);
      if (seen.has(stat.ino)) continue;
      seen.add(stat.ino);
      if (entry.isDirectory()) walk(full);
      else total += stat.blocks * 512;
    }
  };
  walk(dir);
  return total;
}

module.exports = { sourceFiles, copyTree, dockerfileStages, dockerfileArgv, treeBytes };
