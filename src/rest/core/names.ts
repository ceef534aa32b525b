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
