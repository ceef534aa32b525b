/**
 * scripts/build-if-stale.js, npm start's first step: a build is needed when dist/main.js is
 * missing or older than a file under src/ or one of the build's settings files.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { staleReason } from '../../scripts/build-if-stale';

describe('staleReason', () => {
  let root: string;
  const at = (path: string, seconds: number) => utimesSync(join(root, path), seconds, seconds);

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'records-build-'));
    mkdirSync(join(root, 'src', 'marbles'), { recursive: true });
    writeFileSync(join(root, 'src', 'main.ts'), '');
    writeFileSync(join(root, 'src', 'marbles', 'marble.entity.ts'), '');
    writeFileSync(join(root, 'tsconfig.json'), '{}');
    at('src/main.ts', 1000);
    at('src/marbles/marble.entity.ts', 1000);
    at('tsconfig.json', 1000);
  });

  afterEach(() => rmSync(root, { recursive: true, force: true }));

  function built(seconds: number) {
    mkdirSync(join(root, 'dist'), { recursive: true });
    writeFileSync(join(root, 'dist', 'main.js'), '');
    at('dist/main.js', seconds);
  }

  it('should want a build when there is none', () => {
    expect(staleReason(root)).toBe('dist/main.js is missing');
  });

  it('should want none when the build is newer than every source', () => {
    built(2000);
    expect(staleReason(root)).toBeUndefined();
  });

  it('should name a source newer than the build, however deep', () => {
    built(2000);
    at('src/marbles/marble.entity.ts', 3000);
    expect(staleReason(root)).toBe('src/marbles/marble.entity.ts is newer than dist/main.js');
  });

  it('should want a build when a settings file changed', () => {
    built(2000);
    at('tsconfig.json', 3000);
    expect(staleReason(root)).toBe('tsconfig.json is newer than dist/main.js');
  });
});
