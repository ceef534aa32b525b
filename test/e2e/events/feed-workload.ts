/**
 * The writes of the feed-consumer suite (feed-consumer.e2e-spec.ts): a seeded mix of creates,
 * updates (PUT and PATCH), update_all, destroys, destroy_all, bulk creates and the marble
 * actions on the four collections, each sent with an `X-Request-Id` of its own, and what the
 * feed must hold for it once it is answered: the `(collection, action, record_id)` of each event
 * carrying that request id, none for a write that was refused.
 */
import type { Call, Method } from '../support/harness';
import type { DemoRandom } from '../../sources';

/** The collections written, by name: their index path and what each takes. */
const PATHS = {
  emails: '/api/demo/emails',
  phone_numbers: '/api/demo/phone_numbers',
  marbles: '/api/demo/marbles',
  movies: '/api/plain/movies',
} as const;

export type Written = keyof typeof PATHS;
export const WRITTEN = Object.keys(PATHS) as Written[];

export function pathOf(collection: Written): string {
  return PATHS[collection];
}

/** An event as the suite compares it: `marbles created 12`. */
export type Change = string;

export function change(collection: string, action: string, id: unknown): Change {
  return `${collection} ${action} ${Number(id)}`;
}

/** A write to send, and how to read what it changed from its answer. */
export interface Write extends Call {
  headers: Record<string, string>;
  /** The events its answer says the feed holds, sorted; none when it was refused. */
  changes: (status: number, body: Record<string, unknown>) => Change[];
  /** The statuses it may be answered with (an update finds its record gone: 404, or 400 in bulk). */
  statuses: number[];
  /** Sent again (the same `Idempotency-Key`) once answered: the replay records nothing. */
  replay?: boolean;
}

/** A value each collection refuses (validation): the write is refused whole, no event. */
const INVALID: Record<Written, Record<string, unknown>> = {
  emails: { email: 'not an address' },
  phone_numbers: { number: '   ' },
  marbles: { radius_mm: 0 },
  movies: { price: '-1' },
};

const USERS = [1, 2, 3];
const GENRES = [1, 2, 3];

type Body = Record<string, unknown>;

/** Ids of the records each answered write says exist; a record to delete leaves at once. */
export class LiveIds {
  private readonly ids = new Map<Written, number[]>(WRITTEN.map((c) => [c, []]));

  add(collection: Written, ids: number[]): void {
    this.ids.get(collection)!.push(...ids);
  }

  /** `count` distinct ids next to each other, still in place; undefined when there are too few. */
  pick(random: DemoRandom, collection: Written, count: number): number[] | undefined {
    const ids = this.ids.get(collection)!;
    if (ids.length < count) return undefined;
    // Half the time among the oldest few: writers then meet on the same records.
    const start = random.int(
      0,
      random.next() < 0.5 ? Math.min(2, ids.length - count) : ids.length - count,
    );
    return ids.slice(start, start + count);
  }

  /** `count` distinct ids, taken out: no later write picks them. */
  take(random: DemoRandom, collection: Written, count: number): number[] | undefined {
    const picked = this.pick(random, collection, count);
    const ids = this.ids.get(collection)!;
    for (const id of picked ?? []) ids.splice(ids.indexOf(id), 1);
    return picked;
  }
}

/**
 * One writer's sequence of writes: each drawn from its generator and the ids answered so far.
 * Names are unique across writers (`prefix`).
 */
export class Writer {
  private n = 0;

  constructor(
    private readonly random: DemoRandom,
    private readonly live: LiveIds,
    private readonly prefix: string,
  ) {}

  /** The next write: one in twenty is refused. */
  next(): Write {
    const collection = WRITTEN[this.random.int(0, WRITTEN.length - 1)];
    const kinds = collection === 'movies' ? 3 : collection === 'marbles' ? 8 : 6;
    const write =
      this.random.next() < 0.05
        ? this.refused(collection)
        : this.draw(collection, this.random.int(0, kinds - 1));
    return {
      statuses: write.method === 'post' ? [201] : [200, 204, 400, 404],
      ...write,
      headers: { ...write.headers, 'X-Request-Id': this.name('request') },
    };
  }

  /** A write with an invalid value: an update of one record, or a bulk create with one bad item. */
  private refused(collection: Written): Omit<Write, 'headers'> & Partial<Write> {
    const path = pathOf(collection);
    const [id] = this.live.pick(this.random, collection, 1) ?? [];
    const changes = () => [];
    if (id !== undefined && (collection === 'movies' || this.random.next() < 0.5)) {
      const body = INVALID[collection];
      return { method: 'patch', path: `${path}/${id}`, body, changes, statuses: [400, 404] };
    }
    const bad = { ...this.fields(collection), ...INVALID[collection] };
    if (collection === 'movies')
      return { method: 'post', path, body: bad, changes, statuses: [400] };
    const body = [this.fields(collection), bad];
    return { method: 'post', path, body, changes, statuses: [422] };
  }

  private name(what: string): string {
    return `${this.prefix}-${what}-${++this.n}`;
  }

  /** A record's fields to create it with, or to update it with (`update`). */
  private fields(collection: Written, update = false): Body {
    const r = this.random;
    switch (collection) {
      case 'emails':
        return r.next() < 0.5 || !update
          ? { email: `${this.name('mail')}@example.com`, user_id: USERS[r.int(0, 2)] }
          : { user_id: USERS[r.int(0, 2)] };
      case 'phone_numbers':
        return { number: `555 ${this.name('phone')}`, user_id: USERS[r.int(0, 2)] };
      case 'marbles':
        return {
          ...(update ? {} : { name: this.name('marble') }),
          radius_mm: r.int(1, 40),
          price: `${r.int(1, 999)}.${r.int(10, 99)}`,
          description: r.next() < 0.5 ? '' : `drawn ${r.int(1, 1_000_000)}`,
        };
      case 'movies':
        return {
          ...(update ? {} : { name: this.name('movie') }),
          price: `${r.int(1, 99_999)}.5`,
          main_genre_id: r.next() < 0.3 ? null : GENRES[r.int(0, 2)],
          genre_ids: GENRES.filter(() => r.next() < 0.5),
        };
    }
  }

  /** Write `kind` of `collection`: a create when the ids it needs are not there. */
  private draw(
    collection: Written,
    kind: number,
  ): Omit<Write, 'headers' | 'statuses'> & Partial<Write> {
    const path = pathOf(collection);
    const method: Method = this.random.next() < 0.5 ? 'put' : 'patch';
    const created = (status: number, body: Body) =>
      status === 201 ? [change(collection, 'created', body.id)] : [];
    const each = (action: string) => (status: number, body: Body) =>
      status === 200
        ? (body.records as Body[]).map((r) => change(collection, action, r.id)).sort()
        : [];
    const one = (action: string, id: number, ok: number) => (status: number) =>
      status === ok ? [change(collection, action, id)] : [];
    switch (kind) {
      case 1: {
        const [id] = this.live.pick(this.random, collection, 1) ?? [];
        if (id === undefined) break;
        const body = this.fields(collection, true);
        return { method, path: `${path}/${id}`, body, changes: one('updated', id, 200) };
      }
      case 2: {
        const [id] = this.live.take(this.random, collection, 1) ?? [];
        if (id === undefined) break;
        return { method: 'delete', path: `${path}/${id}`, changes: one('deleted', id, 204) };
      }
      case 3: {
        const items = Array.from({ length: this.random.int(2, 4) }, () => this.fields(collection));
        const changes = (status: number, body: Body) =>
          status === 201
            ? (body.records as Body[]).map((r) => change(collection, 'created', r.id)).sort()
            : [];
        return { method: 'post', path, body: items, changes };
      }
      case 4: {
        const ids = this.live.pick(this.random, collection, 2);
        if (!ids) break;
        const body = ids.map((id) => ({ id, ...this.fields(collection, true) }));
        return { method, path, body, changes: each('updated') };
      }
      case 5: {
        const ids = this.live.take(this.random, collection, 2);
        if (!ids) break;
        return { method: 'delete', path, body: ids, changes: each('deleted') };
      }
      case 6:
      case 7: {
        const [id] = this.live.pick(this.random, collection, 1) ?? [];
        if (id === undefined) break;
        const [action, body] =
          kind === 6
            ? ['adjust_price', { price: `${this.random.int(1, 99)}.25` }]
            : ['toggle_is_discounted', undefined];
        return {
          method: 'patch',
          path: `${path}/${id}/${action}`,
          body,
          changes: one('updated', id, 200),
        };
      }
    }
    // A create; now and then with an Idempotency-Key, sent again once answered.
    const replay = this.random.next() < 0.2;
    return {
      method: 'post',
      path,
      body: this.fields(collection),
      changes: created,
      replay,
      headers: replay ? { 'Idempotency-Key': this.name('key') } : {},
    };
  }
}
