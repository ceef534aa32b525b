/**
 * A subscription as a client sends it (create and PATCH), checked: `url` (the target rules are
 * targets.ts's), `collections` and `actions` (non-empty lists of known names, or null for all),
 * `description`, `status`. Fields the service writes itself (`id`, `secret`, ...) may be sent
 * back as read and are ignored; any other field is a 400 naming it.
 */
import { FieldErrors, RecordError } from '../rest/core/errors';
import { xmlRootOf } from '../rest/core/input/xml-input';
import { Settings, Status } from './webhook-store';

export const ACTIONS = ['created', 'updated', 'deleted'];

/** What the service writes and a client may send back as it read it. */
const READ_ONLY = new Set([
  'id',
  'secret',
  'disabled_reason',
  'last_event_id',
  'created_at',
  'updated_at',
]);
const WRITABLE = new Set(['url', 'description', 'collections', 'actions', 'status']);

export interface SubscriptionInput {
  settings: Partial<Settings>;
  status?: Status;
}

/** The body of a create (`partial` false: `url` required) or of a PATCH. */
export function subscriptionInput(
  body: unknown,
  collections: readonly string[],
  partial: boolean,
): SubscriptionInput {
  const root = xmlRootOf(body);
  if (root !== undefined && !['webhook', 'hash'].includes(root)) {
    throw RecordError.invalid(
      `XML root element <${root}> does not name a webhook subscription: send <webhook> or <hash>.`,
    );
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw RecordError.invalid('The body must be a webhook subscription: an object with its url.');
  }
  const fields = body as Record<string, unknown>;
  const errors: FieldErrors = {};
  const problem = (field: string, message: string) => (errors[field] ??= []).push(message);
  for (const name of Object.keys(fields)) {
    if (!WRITABLE.has(name) && !READ_ONLY.has(name)) problem(name, 'Unknown field.');
  }
  const input: SubscriptionInput = { settings: {} };
  if (fields.url === undefined) {
    if (!partial) problem('url', 'This field is required.');
  } else if (typeof fields.url !== 'string' || fields.url.trim() === '') {
    problem('url', 'Must be an https:// URL.');
  } else {
    input.settings.url = fields.url.trim();
  }
  if (fields.description !== undefined) {
    if (typeof fields.description !== 'string') problem('description', 'Must be a string.');
    else if (fields.description.length > 255) problem('description', 'At most 255 characters.');
    else input.settings.description = fields.description;
  } else if (!partial) input.settings.description = '';
  const names = (field: 'collections' | 'actions', known: readonly string[]) => {
    const value = fields[field];
    if (value === undefined) {
      if (!partial) input.settings[field] = null;
      return;
    }
    if (value === null) {
      input.settings[field] = null;
      return;
    }
    const list = Array.isArray(value) ? value : undefined;
    if (!list || list.length === 0 || list.some((n) => typeof n !== 'string')) {
      problem(
        field,
        `Must be a non-empty list of ${known.join(', ')} (or null, or left out, for all).`,
      );
      return;
    }
    const unknown = list.filter((n) => !known.includes(n as string));
    if (unknown.length > 0) {
      problem(
        field,
        `No ${field === 'collections' ? 'collection' : 'action'} named ${unknown.map((n) => `"${String(n)}"`).join(', ')}; known: ${known.join(', ')}.`,
      );
      return;
    }
    // In the order they are known, once each.
    input.settings[field] = known.filter((n) => list.includes(n));
  };
  names('collections', collections);
  names('actions', ACTIONS);
  if (fields.status !== undefined) {
    if (fields.status !== 'active' && fields.status !== 'disabled') {
      problem('status', 'Must be active or disabled.');
    } else input.status = fields.status;
  }
  if (Object.keys(errors).length > 0) throw RecordError.validation(errors);
  return input;
}
