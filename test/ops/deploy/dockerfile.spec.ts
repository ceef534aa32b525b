/**
 * The Dockerfile and .dockerignore, checked as text: the stages, what each installs and copies,
 * the user, the health check and the CMD. No Docker needed (test/ops/deploy/start-sequence.js runs the
 * stages themselves outside Docker).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../support/process';

describe('Dockerfile', () => {
  const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  // Instructions, with continuation lines joined and comments dropped.
  const instructions = text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const stages: string[][] = [];
  for (const line of instructions) {
    if (/^FROM\s/i.test(line)) stages.push([]);
    stages[stages.length - 1]?.push(line);
  }
  const named = (name: string) =>
    stages.find((stage) => new RegExp(`^FROM\\s+\\S+\\s+AS\\s+${name}$`, 'i').test(stage[0])) ?? [];
  const toolchain = named('toolchain');
  const build = named('build');
  const deps = named('deps');
  const final = stages[stages.length - 1] ?? [];
  const of = (stage: string[], keyword: string) =>
    stage.filter((line) => new RegExp(`^${keyword}\\s`, 'i').test(line));

  it('should be multi-stage on node:26-slim: a toolchain, build and deps on it, and the final stage', () => {
    expect(instructions.filter((l) => /^FROM\s/i.test(l))).toEqual([
      'FROM node:26-slim AS toolchain',
      'FROM toolchain AS build',
      'FROM toolchain AS deps',
      'FROM node:26-slim',
    ]);
  });

  it('should install from the lockfile and build in the build stage', () => {
    const runs = of(toolchain, 'RUN').concat(of(build, 'RUN')).join('\n');
    expect(runs).toMatch(/\bnpm ci\b/);
    expect(runs).toMatch(/\bnpm run build\b/);
    expect(of(toolchain, 'COPY').join('\n')).toContain('package-lock.json');
  });

  it('should install the production dependencies without dev and optional ones (no TypeScript) in the deps stage', () => {
    const runs = of(deps, 'RUN');
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatch(/^RUN npm ci --omit=dev --omit=optional --no-audit --no-fund(\s|$)/);
    // Whatever else it does, it does to better-sqlite3's folder only (test/ops/deploy/start-sequence.js
    // runs these lines and checks that the addon still loads).
    const rest = runs[0]
      .split('&&')
      .slice(1)
      .map((c) => c.trim());
    expect(rest[0]).toBe('cd node_modules/better-sqlite3');
    for (const command of rest.slice(1)) expect(command).toMatch(/^rm -rf(\s+[\w./]+)+$/);
  });

  it('should copy into the build stage only files that exist and that .dockerignore lets through', () => {
    const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
      .split(/\r?\n/)
      .filter(Boolean);
    for (const line of of(toolchain, 'COPY').concat(of(build, 'COPY'))) {
      const parts = line
        .split(/\s+/)
        .slice(1)
        .filter((p) => !p.startsWith('--'));
      for (const source of parts.slice(0, -1)) {
        expect([source, existsSync(join(ROOT, source))]).toEqual([source, true]);
        expect(ignored).not.toContain(source);
      }
    }
    for (const must of ['node_modules', 'dist', '.env', '.git', 'test', 'test-output', 'coverage'])
      expect(ignored).toContain(must);
  });

  it('should copy only package.json and node_modules of the deps stage and dist of the build stage into the final stage', () => {
    const copies = of(final, 'COPY').concat(of(final, 'ADD'));
    const sources: string[] = [];
    for (const line of copies) {
      const from = /^COPY\s.*--from=(\w+)\b/.exec(line)?.[1];
      const parts = line
        .split(/\s+/)
        .slice(1)
        .filter((p) => !p.startsWith('--'));
      for (const source of parts.slice(0, -1))
        sources.push(`${from}:${source.replace(/^\/app\//, '').replace(/\/$/, '')}`);
    }
    expect(sources.sort()).toEqual(['build:dist', 'deps:node_modules', 'deps:package.json']);
  });

  it('should run as the unprivileged node user in the final stage', () => {
    const users = of(final, 'USER');
    expect(users).toEqual(['USER node']);
    const userAt = final.indexOf('USER node');
    const cmdAt = final.findIndex((l) => /^CMD\s/i.test(l));
    expect(userAt).toBeGreaterThan(0);
    expect(userAt).toBeLessThan(cmdAt);
  });

  it('should set NODE_ENV=production and expose port 3000 in the final stage', () => {
    expect(of(final, 'ENV').join(' ')).toMatch(/\bNODE_ENV=production\b/);
    expect(of(final, 'EXPOSE')).toEqual(['EXPOSE 3000']);
  });

  it('should have a HEALTHCHECK in the final stage that asks /health/ready', () => {
    const checks = of(final, 'HEALTHCHECK');
    expect(checks).toHaveLength(1);
    expect(checks[0]).toMatch(/\sCMD\s/);
    expect(checks[0]).toContain('/health/ready');
    expect(checks[0]).not.toMatch(/\bcurl\b|\bwget\b/); // node:26-slim has neither
  });

  it('should start with CMD node dist/main.js, with the V8 flags of npm start', () => {
    const cmds = of(final, 'CMD');
    expect(cmds).toHaveLength(1);
    const cmd = cmds[0].replace(/^CMD\s+/i, '');
    const argv = cmd.startsWith('[') ? JSON.parse(cmd) : cmd.split(/\s+/);
    const start = (
      JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
        scripts: { start: string };
      }
    ).scripts.start;
    // npm start execs the same command (so that npm's signals reach the server).
    expect(`exec ${argv.join(' ')}`).toBe(start);
    expect(argv).toEqual([
      'node',
      '--max-old-space-size=512',
      '--max-semi-space-size=8',
      'dist/main.js',
    ]);
    expect(of(final, 'ENTRYPOINT')).toEqual([]);
  });

  it('should give the health check command something that runs: the node -e script parses', () => {
    const check = of(final, 'HEALTHCHECK')[0];
    const json = check.slice(check.indexOf('['));
    const argv = JSON.parse(json) as string[];
    expect(argv.slice(0, 2)).toEqual(['node', '-e']);
    expect(() => new Function(argv[2])).not.toThrow();
  });
});
