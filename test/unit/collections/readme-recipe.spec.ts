/**
 * The README's "Adding a collection" is what test/fixtures/tags/ does, word for word: each ```ts
 * block headed `// src/tags/<file>` is that fixture file, its imports of `'../../../src/…'` read
 * as `'../…'` (the recipe's folder is src/tags/), and every fixture file stands in the recipe.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
const FIXTURE = join(ROOT, 'test', 'fixtures', 'tags');

/** The recipe's files: `// src/tags/<file>` → the block's text after that line. */
function recipeFiles(): Map<string, string> {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('\n### Adding a collection\n');
  if (start === -1) throw new Error('README.md has no section "Adding a collection"');
  const next = readme.slice(start + 1).search(/\n##+ /);
  const section = readme.slice(start, next === -1 ? undefined : start + 1 + next);
  const files = new Map<string, string>();
  for (const [, name, text] of section.matchAll(
    /^```ts\n\/\/ src\/tags\/(\S+)\n([\s\S]*?)^```$/gm,
  )) {
    if (files.has(name)) throw new Error(`the recipe shows src/tags/${name} twice`);
    files.set(name, text);
  }
  return files;
}

/** A fixture file as it would stand in src/tags/. */
function asInSrc(name: string): string {
  return readFileSync(join(FIXTURE, name), 'utf8').replaceAll("'../../../src/", "'../");
}

describe("the README's recipe for adding a collection", () => {
  const recipe = recipeFiles();

  it('should show every file of test/fixtures/tags/, and no other', () => {
    expect([...recipe.keys()].sort()).toEqual(readdirSync(FIXTURE).sort());
  });

  it.each(readdirSync(FIXTURE))('should show %s word for word', (name) => {
    expect(recipe.get(name)).toBe(asInSrc(name));
  });
});
