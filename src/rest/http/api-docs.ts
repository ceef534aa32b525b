import { Injectable } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';

/**
 * The application's OpenAPI document, generated once at start from the controllers, and the
 * part of it each collection's OPTIONS route answers with.
 */
@Injectable()
export class ApiDocs {
  private document?: OpenAPIObject;
  private readonly parts = new Map<string, OpenAPIObject>();

  use(document: OpenAPIObject): void {
    this.document = document;
    this.parts.clear();
  }

  get whole(): OpenAPIObject {
    if (!this.document) throw new Error('The OpenAPI document has not been generated.');
    return this.document;
  }

  /** The routes under `path` and the schemas they refer to. */
  forPath(path: string): OpenAPIObject {
    let part = this.parts.get(path);
    if (part) return part;
    const whole = this.whole;
    const paths = Object.fromEntries(
      Object.entries(whole.paths).filter(([p]) => p === path || p.startsWith(`${path}/`)),
    );
    const schemas = whole.components?.schemas ?? {};
    const used = new Set<string>();
    const visit = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(visit);
      if (!node || typeof node !== 'object') return;
      for (const [key, value] of Object.entries(node)) {
        if (key === '$ref' && typeof value === 'string') {
          const name = value.split('/').pop()!;
          if (!used.has(name)) {
            used.add(name);
            visit(schemas[name]);
          }
        } else {
          visit(value);
        }
      }
    };
    visit(paths);
    part = {
      ...whole,
      paths,
      components: { schemas: Object.fromEntries([...used].sort().map((n) => [n, schemas[n]])) },
    };
    this.parts.set(path, part);
    return part;
  }
}
