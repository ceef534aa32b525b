#!/usr/bin/env node
/**
 * `npm run lint`'s cycle check over src/, with madge's import graph: no file cycle, and no
 * folder cycle either. For the folder check, a file belongs to its folder, except the files
 * directly in src/, which stand for themselves (src/logging.ts is its own node, src/observability/
 * another): two nodes that import each other, through any files, are a cycle even when no file
 * imports itself back (observability/ importing logging.ts, which imports observability/).
 * Type-only imports count: they tie the folders as much as any other.
 */
const path = require('node:path');
const madge = require('madge');

const SRC = path.join(__dirname, '..', 'src');

/** The node of a file, relative to src/: its folder, or itself at the top. */
function nodeOf(file) {
  const folder = path.posix.dirname(file);
  return folder === '.' ? file : `${folder}/`;
}

/** The cycles of a graph given as node → nodes it imports (one per strongly connected set). */
function cyclesOf(graph) {
  // Tarjan's algorithm: every strongly connected set of more than one node is a cycle.
  let index = 0;
  const indexes = new Map();
  const lows = new Map();
  const stack = [];
  const onStack = new Set();
  const cycles = [];
  const visit = (node) => {
    indexes.set(node, index);
    lows.set(node, index++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!indexes.has(next)) {
        visit(next);
        lows.set(node, Math.min(lows.get(node), lows.get(next)));
      } else if (onStack.has(next)) {
        lows.set(node, Math.min(lows.get(node), indexes.get(next)));
      }
    }
    if (lows.get(node) === indexes.get(node)) {
      const set = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        set.push(member);
      } while (member !== node);
      if (set.length > 1) cycles.push(set.sort());
    }
  };
  for (const node of graph.keys()) if (!indexes.has(node)) visit(node);
  return cycles;
}

async function main() {
  const result = await madge(SRC, {
    fileExtensions: ['ts'],
    tsConfig: path.join(__dirname, '..', 'tsconfig.json'),
  });
  let failed = false;
  for (const cycle of result.circular()) {
    failed = true;
    console.error(`file cycle: ${cycle.join(' -> ')}`);
  }
  const folders = new Map();
  for (const [file, imports] of Object.entries(result.obj())) {
    const from = nodeOf(file);
    if (!folders.has(from)) folders.set(from, new Set());
    for (const imported of imports) {
      const to = nodeOf(imported);
      if (to !== from) folders.get(from).add(to);
    }
  }
  for (const cycle of cyclesOf(folders)) {
    failed = true;
    const edges = cycle.flatMap((from) =>
      [...folders.get(from)].filter((to) => cycle.includes(to)).map((to) => `${from} -> ${to}`),
    );
    console.error(`folder cycle between ${cycle.join(', ')}: ${edges.join('; ')}`);
  }
  const files = Object.keys(result.obj()).length;
  if (failed) process.exit(1);
  console.log(`no import cycle: ${files} files, ${folders.size} folders and top-level files`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
