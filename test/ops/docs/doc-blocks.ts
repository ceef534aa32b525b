/**
 * The fenced blocks of the README and docs/, read as test/ops/docs/readme.spec.ts runs them, and the
 * comparison of a command's output with the block of what it answers.
 *
 * Every fence names its kind (checked by the spec):
 * - ```sh: commands to paste, run as written. One of the form `VAR=value … npm start` (re)starts
 *   the service with those variables on the same database; `npm run dev:issuer` (`sh background`)
 *   starts the development issuer, in the clone as a person does, on a free port that stands for
 *   its http://localhost:9400. Info string `sh background`: a command
 *   that keeps running (a stream, "in one terminal") while the commands after it run ("in
 *   another"); its answer is checked once the next command has run.
 * - ```ts, ```js or ```json whose first line is `// <name>`, a name without a folder: a file
 *   to save under that name in the current directory (a tsconfig.json takes comments). The
 *   recipe's files of docs/adding-a-collection.md, `// src/tags/<file>`, are recipe.spec.ts's.
 * - ```http, ```json, ```xml, ```text right after a command: what it answers. An ```http block
 *   holds the status line, the headers that matter (each must be in the answer with that value)
 *   and, after a blank line, the body; any other block holds the whole output. `…` stands for any
 *   text (times, fields left out).
 * - Anything else (a tree, a diagram, a fragment of code, a body on its own) is shown, not run.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../support/process';

export interface Block {
  /** The fence's language, and the words after it. */
  lang: string;
  attributes: string[];
  body: string;
  /** The `## ` section it stands in ('' before the first). */
  section: string;
  line: number;
}

export type Step =
  | { kind: 'command'; command: string; background: boolean; expected?: Block; line: number }
  | { kind: 'start'; env: Record<string, string>; line: number }
  | { kind: 'issuer'; expected?: Block; line: number }
  | { kind: 'file'; name: string; body: string; line: number };

const ANSWERS = new Set(['http', 'json', 'xml', 'text']);
const START = /^((?:[A-Z][A-Z0-9_]*=\S*\s+)*)npm start\s*$/;
const ISSUER = /^npm run dev:issuer\s*$/;
const FILE = /^\/\/ ([\w.-]+)\n/;

/** Every fenced block of `file`, in order. */
export function blocksOf(file: string): Block[] {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  const blocks: Block[] = [];
  let section = '';
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].startsWith('## ')) section = lines[i].slice(3).trim();
    const fence = /^```(.*)$/.exec(lines[i]);
    if (!fence) continue;
    const end = lines.indexOf('```', i + 1);
    if (end === -1) throw new Error(`${file}:${i + 1}: a fence that is never closed`);
    const [lang = '', ...attributes] = fence[1].trim().split(/\s+/).filter(Boolean);
    blocks.push({
      lang,
      attributes,
      body: lines.slice(i + 1, end).join('\n') + '\n',
      section,
      line: i + 1,
    });
    i = end;
  }
  return blocks;
}

/** The steps of `file` a person would take, in order, leaving out the sections in `skipped`. */
export function stepsOf(file: string, skipped: readonly string[] = []): Step[] {
  const blocks = blocksOf(file).filter((b) => !skipped.includes(b.section));
  const steps: Step[] = [];
  blocks.forEach((block, i) => {
    const file = FILE.exec(block.body);
    if (file && (block.lang === 'ts' || block.lang === 'js' || block.lang === 'json')) {
      steps.push({ kind: 'file', name: file[1], body: block.body, line: block.line });
      return;
    }
    if (block.lang !== 'sh') return;
    const start = START.exec(block.body.trim());
    if (start) {
      const env = Object.fromEntries(
        start[1]
          .trim()
          .split(/\s+/)
          .filter(Boolean)
          .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
      );
      steps.push({ kind: 'start', env, line: block.line });
      return;
    }
    const next = blocks[i + 1];
    const answered = next && ANSWERS.has(next.lang) && !FILE.test(next.body);
    if (ISSUER.test(block.body.trim())) {
      steps.push({ kind: 'issuer', expected: answered ? next : undefined, line: block.line });
      return;
    }
    steps.push({
      kind: 'command',
      command: block.body,
      background: block.attributes.includes('background'),
      expected: answered ? next : undefined,
      line: block.line,
    });
  });
  return steps;
}

/** `text` as a pattern: `…` matches anything, the rest literally. */
export function pattern(text: string): RegExp {
  const parts = text.split('…').map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('[\\s\\S]*?')}$`);
}

/** Compares a command's output with the block it answers; undefined when it fits, else why not. */
export function misfit(actual: string, expected: Block): string | undefined {
  if (expected.lang !== 'http') {
    return pattern(expected.body.trimEnd()).test(actual.trimEnd())
      ? undefined
      : `the output is\n${actual}`;
  }
  const split = actual.indexOf('\r\n\r\n');
  if (split === -1) return `no HTTP answer in\n${actual}`;
  const [head, body] = [actual.slice(0, split), actual.slice(split + 4)];
  const [status, ...lines] = head.split('\r\n');
  const headers = new Map(
    lines.map((l) => [
      l.slice(0, l.indexOf(':')).toLowerCase(),
      l.slice(l.indexOf(':') + 1).trim(),
    ]),
  );
  const at = expected.body.indexOf('\n\n');
  const [wantHead, wantBody] =
    at === -1 ? [expected.body, ''] : [expected.body.slice(0, at), expected.body.slice(at + 2)];
  const [wantStatus, ...wantLines] = wantHead.trimEnd().split('\n');
  if (status !== wantStatus) return `the status line is ${status}\n${actual}`;
  for (const line of wantLines) {
    const name = line.slice(0, line.indexOf(':')).toLowerCase();
    const value = line.slice(line.indexOf(':') + 1).trim();
    if (!pattern(value).test(headers.get(name) ?? '')) return `${line} is not in\n${head}`;
  }
  // A document shows no CR: CSV's CRLF line ends read as its LFs.
  const text = body.replaceAll('\r\n', '\n').trimEnd();
  return pattern(wantBody.trimEnd()).test(text) ? undefined : `the body is\n${body}`;
}
