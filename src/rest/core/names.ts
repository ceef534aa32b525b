/** Names derived from declared names, in one place so every layer derives them alike. */

/** `results` → `result`, `categories` → `category`, `users` → `user`. */
export function singular(name: string): string {
  if (name.endsWith('ies')) return name.slice(0, -3) + 'y';
  if (name.endsWith('s')) return name.slice(0, -1);
  return name;
}

/** `phone_number` → `phone number`: a declared name as words in a message. */
export function words(name: string): string {
  return name.replace(/_/g, ' ');
}

/** `phone_number` → `PhoneNumber`: a declared name as a schema or class name. */
export function pascal(name: string): string {
  return name.replace(/(^|_)(\w)/g, (_m, _s, c: string) => c.toUpperCase());
}

/** `A marble`, `An email`. */
export function withArticle(noun: string): string {
  return `${/^[aeiou]/i.test(noun) ? 'An' : 'A'} ${noun}`;
}

/** An empty class with the given name, for decorators to describe. */
export function namedClass(name: string): new () => object {
  const cls = class {};
  Object.defineProperty(cls, 'name', { value: name });
  return cls;
}

/**
 * Of `candidates`, the one closest to `name` (edits, ignoring case), when it is
 * close enough to be a slip: at most 2 edits, and fewer than half of the name's length
 * (`pagesize` → `page_size`, `prise` → `price`; `colour` → none). The first of equals wins.
 */
export function closestName(name: string, candidates: Iterable<string>): string | undefined {
  const wanted = name.toLowerCase();
  const bound = Math.min(2, Math.ceil(wanted.length / 2) - 1);
  let best: string | undefined;
  let bestDistance = bound + 1;
  for (const candidate of candidates) {
    const distance = editDistance(wanted, candidate.toLowerCase(), bestDistance);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * Edit distance of `a` and `b`, a swap of two neighbours counting as one edit (optimal string
 * alignment: `pgae` is one from `page`), or `limit` as soon as it cannot be below it.
 */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) >= limit) return limit;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let least = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let d = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost);
      if (
        i > 1 &&
        j > 1 &&
        a.charCodeAt(i - 1) === b.charCodeAt(j - 2) &&
        a.charCodeAt(i - 2) === b.charCodeAt(j - 1)
      ) {
        d = Math.min(d, before[j - 2] + 1);
      }
      row[j] = d;
      if (d < least) least = d;
    }
    if (least >= limit) return limit;
    before = previous;
    previous = row;
  }
  return Math.min(previous[b.length], limit);
}
