/**
 * Record validators and preconditions for safe writes: every stored record has a version, bumped by
 * each write; its strong entity tag is `"<id>.<version>"`, the same in JSON and XML. `If-Match`
 * names the tags a write may change, or `*` (any current record).
 */
import { RecordError } from './errors';

/** Where a record read for a single-record response keeps its entity tag (not rendered). */
export const ENTITY_TAG = Symbol('entity tag');

/** An object that may carry its entity tag. */
export type Tagged = { [ENTITY_TAG]?: string };

/** Gives `target` its entity tag, as a property no rendering or comparison sees. */
export function tag<T extends object>(target: T, value: string): T {
  Object.defineProperty(target, ENTITY_TAG, { value, enumerable: false });
  return target;
}

/** The strong entity tag of a record at a version. */
export function entityTag(id: unknown, version: unknown): string {
  return `"${Number(id)}.${Number(version)}"`;
}

/**
 * `If-Match`: `*`, or the tags a write may change, as sent (weak ones with their `W/`, which
 * never match: If-Match compares strongly).
 */
export type Precondition = '*' | string[];

/** One entity tag of a list: optional `W/`, then a quoted opaque string (RFC 9110 §8.8.3). */
const TAG = /^\s*(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"\s*$/;

/**
 * The If-Match header as a precondition, or undefined without one. Weak tags are kept, to be
 * named in the refusal, but never match (If-Match compares strongly); a header that is not a
 * list of tags is 400.
 */
export function parseIfMatch(header: string | undefined): Precondition | undefined {
  if (header === undefined) return undefined;
  if (header.trim() === '*') return '*';
  const tags: string[] = [];
  for (const part of header.split(',')) {
    if (part.trim() === '') continue;
    const match = TAG.exec(part);
    if (!match) {
      throw RecordError.invalid(
        'Malformed If-Match header: send "*" or entity tags as the ETag header gave them.',
      );
    }
    tags.push(`${match[1] ?? ''}"${match[2]}"`);
  }
  if (tags.length === 0 && !/"/.test(header)) {
    throw RecordError.invalid(
      'Malformed If-Match header: send "*" or entity tags as the ETag header gave them.',
    );
  }
  return tags;
}

/** A strong tag of this service's form, `"<id>.<version>"` (a selection's suffix allowed). */
const RECORD_TAG = /^"(\d+)\.(\d+)(?:-[0-9a-f]+)?"$/;

/**
 * Why a record at `version` does not meet `condition`, in the most helpful words: If-Match
 * sent only weak tags (which never match), or no tag of this record (another record's, or one of
 * no record), or names a version of the record it has not reached (a tag from the future), or
 * else names a version the record has changed since.
 */
export function preconditionFailure(
  label: string,
  id: number,
  version: number,
  condition: Precondition,
): RecordError {
  if (condition !== '*' && condition.length > 0) {
    if (condition.every((t) => t.startsWith('W/'))) {
      return new RecordError(
        'precondition-failed',
        `If-Match sends only weak entity tags (${condition.join(', ')}), which never match: ` +
          `send the ETag of ${label} ${id} as a response gave it, without W/; nothing was changed.`,
      );
    }
    const strong = condition.filter((t) => !t.startsWith('W/'));
    if (!strong.some((t) => Number(RECORD_TAG.exec(t)?.[1]) === id)) {
      return new RecordError(
        'precondition-failed',
        `If-Match names no version of ${label} ${id} (${strong.join(', ')}; its tags are ` +
          `"${id}.<version>"): send the ETag a response for ${label} ${id} gave; nothing was changed.`,
      );
    }
    const ahead = condition
      .map((t) => RECORD_TAG.exec(t))
      .filter((m) => m !== null && Number(m[1]) === id && Number(m[2]) > version)
      .map((m) => Number(m![2]));
    if (ahead.length > 0) {
      return new RecordError(
        'precondition-failed',
        `If-Match names version ${Math.max(...ahead)} of ${label} ${id}, which it has not ` +
          `reached (it is at version ${version}): send the ETag a response gave; nothing was changed.`,
      );
    }
  }
  return RecordError.preconditionFailed(label, id);
}

/**
 * Whether a record with tag `current` meets the precondition (none: always). A tag of a field
 * selection (`"7.3-1a2b3c4d"`, see `selectionTag`) names the same version as the record's own.
 */
export function meets(condition: Precondition | undefined, current: string): boolean {
  if (condition === undefined || condition === '*') return true;
  return condition.some((tag) => tag === current || tag.replace(/-[0-9a-f]+"$/, '"') === current);
}

/**
 * The versions of record `id` that a list of tags names (those `meets` would accept), for a
 * write guarded by the version alone.
 */
export function versionsNamed(condition: string[], id: number): number[] {
  const versions: number[] = [];
  for (const tag of condition) {
    const match = /^"(\d+)\.(\d+)(?:-[0-9a-f]+)?"$/.exec(tag);
    if (!match || entityTag(match[1], match[2]) !== `"${match[1]}.${match[2]}"`) continue;
    if (Number(match[1]) === id) versions.push(Number(match[2]));
  }
  return versions;
}

/**
 * The tag of a record read with a field selection: the record's version, and the selection
 * (a hash of its key), so that each selection has a tag of its own while If-Match still
 * validates the record.
 */
export function selectionTag(tag: string, suffix: string): string {
  return suffix ? `${tag.slice(0, -1)}-${suffix}"` : tag;
}
