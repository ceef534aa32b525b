/**
 * CHANGELOG.md in the Keep a Changelog form: an Unreleased section first, then one section per
 * version, newest first, the newest being package.json's version.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../support/process';

const text = readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8');
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
};
const sections = [...text.matchAll(/^## (.+)$/gm)].map((m) => m[1]);

describe('CHANGELOG.md', () => {
  it('should start with the title and a link to Keep a Changelog', () => {
    expect(text.startsWith('# Changelog\n')).toBe(true);
    expect(text).toContain('https://keepachangelog.com/');
  });

  it("should have Unreleased first, then package.json's version with its date", () => {
    expect(sections[0]).toBe('[Unreleased]');
    expect(sections[1]).toMatch(
      new RegExp(`^\\[${version.replace(/\./g, '\\.')}\\] - \\d{4}-\\d{2}-\\d{2}$`),
    );
  });

  it('should group changes under the Keep a Changelog headings only', () => {
    const kinds = [...text.matchAll(/^### (.+)$/gm)].map((m) => m[1]);
    expect(kinds.length).toBeGreaterThan(0);
    for (const kind of kinds)
      expect(['Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security']).toContain(kind);
  });
});
