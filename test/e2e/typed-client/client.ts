/**
 * A client a developer would write against this service: types generated from its OpenAPI
 * document by openapi-typescript (openapi.d.ts, made by the contract test, not committed), calls
 * made with openapi-fetch. It must compile (the contract test runs tsc on it) and every call must
 * succeed against an app holding the demo data. Each function calls every route of a collection.
 */
import createClient from 'openapi-fetch';
import type { paths } from './openapi';

export type Api = ReturnType<typeof createClient<paths>>;

export function client(baseUrl: string, fetch: typeof globalThis.fetch, token?: string): Api {
  return createClient<paths>({
    baseUrl,
    fetch,
    headers: token ? { Authorization: `Bearer ${token}` } : {},
  });
}

/** What one call answered: its route and status. */
export type Outcome = [string, number];

export async function marbles(api: Api): Promise<Outcome[]> {
  const path = { id: 1 };
  const page = await api.GET('/api/demo/marbles', {
    params: {
      query: { page_size: 2, ordering: '-price', price__gt: '1.0', only: 'id,name,price' },
    },
  });
  // Typed envelope: count and results are required, a record's fields are typed.
  const count: number = page.data!.count;
  const first: string = page.data!.results[0].name;
  const created = await api.POST('/api/demo/marbles', {
    body: { name: 'Typed Marble', radius_mm: 4, price: '2.5' },
  });
  const bulk = await api.POST('/api/demo/marbles', {
    body: [{ name: 'Typed Marble 2' }, { name: 'Typed Marble 3', user_id: 2 }],
  });
  const newId: number = (created.data as { id: number }).id;
  return [
    ['index', page.response.status + (count > 0 && first ? 0 : 1000)],
    ['create', created.response.status + (newId > 0 ? 0 : 1000)],
    ['bulk create', bulk.response.status],
    ['show', (await api.GET('/api/demo/marbles/{id}', { params: { path } })).response.status],
    [
      'update (PATCH, partial)',
      (await api.PATCH('/api/demo/marbles/{id}', { params: { path }, body: { price: '3.5' } }))
        .response.status,
    ],
    [
      'update (PUT, partial)',
      (await api.PUT('/api/demo/marbles/{id}', { params: { path }, body: { radius_mm: 5 } }))
        .response.status,
    ],
    [
      'adjust_price',
      (
        await api.PATCH('/api/demo/marbles/{id}/adjust_price', {
          params: { path },
          body: { price: '12.5' },
        })
      ).response.status,
    ],
    [
      'toggle_is_discounted',
      (await api.PATCH('/api/demo/marbles/{id}/toggle_is_discounted', { params: { path } }))
        .response.status,
    ],
    [
      'update_all (PATCH)',
      (await api.PATCH('/api/demo/marbles', { body: [{ id: 2, price: '4.5' }] })).response.status,
    ],
    [
      'update_all (PUT)',
      (await api.PUT('/api/demo/marbles', { body: [{ id: 3, radius_mm: 6 }] })).response.status,
    ],
    ['options', (await api.OPTIONS('/api/demo/marbles')).response.status],
    [
      'destroy',
      (await api.DELETE('/api/demo/marbles/{id}', { params: { path: { id: 20 } } })).response
        .status,
    ],
    ['destroy_all', (await api.DELETE('/api/demo/marbles', { body: [21, 22] })).response.status],
  ];
}

export async function emails(api: Api): Promise<Outcome[]> {
  const path = { id: 1 };
  return [
    [
      'index',
      (await api.GET('/api/demo/emails', { params: { query: { except: 'billing_user' } } }))
        .response.status,
    ],
    [
      'create',
      (await api.POST('/api/demo/emails', { body: { email: 'typed@example.com', user_id: 1 } }))
        .response.status,
    ],
    [
      'bulk create',
      (await api.POST('/api/demo/emails', { body: [{ email: 'typed2@example.com', user_id: 2 }] }))
        .response.status,
    ],
    ['ping', (await api.GET('/api/demo/emails/ping')).response.status],
    ['child_ping', (await api.GET('/api/demo/emails/child_ping')).response.status],
    ['show', (await api.GET('/api/demo/emails/{id}', { params: { path } })).response.status],
    [
      'update (PATCH)',
      (await api.PATCH('/api/demo/emails/{id}', { params: { path }, body: { is_primary: true } }))
        .response.status,
    ],
    [
      'update (PUT)',
      (await api.PUT('/api/demo/emails/{id}', { params: { path }, body: { user_id: 1 } })).response
        .status,
    ],
    [
      'update_all (PATCH)',
      (await api.PATCH('/api/demo/emails', { body: [{ id: 2, is_primary: false }] })).response
        .status,
    ],
    [
      'update_all (PUT)',
      (await api.PUT('/api/demo/emails', { body: [{ id: 3, user_id: 2 }] })).response.status,
    ],
    ['options', (await api.OPTIONS('/api/demo/emails')).response.status],
    [
      'destroy',
      (await api.DELETE('/api/demo/emails/{id}', { params: { path: { id: 20 } } })).response.status,
    ],
    ['destroy_all', (await api.DELETE('/api/demo/emails', { body: [21, 22] })).response.status],
  ];
}

export async function phoneNumbers(api: Api): Promise<Outcome[]> {
  const path = { id: 1 };
  return [
    [
      'index',
      (
        await api.GET('/api/demo/phone_numbers', {
          params: { query: { search: '555', 'user.id': 1 } },
        })
      ).response.status,
    ],
    [
      'create',
      (await api.POST('/api/demo/phone_numbers', { body: { number: '+1 555 0111', user_id: 1 } }))
        .response.status,
    ],
    [
      'bulk create',
      (await api.POST('/api/demo/phone_numbers', { body: [{ number: '+1 555 0112', user_id: 1 }] }))
        .response.status,
    ],
    ['ping', (await api.GET('/api/demo/phone_numbers/ping')).response.status],
    ['child_ping', (await api.GET('/api/demo/phone_numbers/child_ping')).response.status],
    [
      'show',
      (
        await api.GET('/api/demo/phone_numbers/{id}', {
          params: { path, query: { fields: 'id,number' } },
        })
      ).response.status,
    ],
    [
      'update (PATCH)',
      (await api.PATCH('/api/demo/phone_numbers/{id}', { params: { path }, body: { user_id: 2 } }))
        .response.status,
    ],
    [
      'update (PUT)',
      (
        await api.PUT('/api/demo/phone_numbers/{id}', {
          params: { path },
          body: { number: '+1 555 0113' },
        })
      ).response.status,
    ],
    [
      'update_all (PATCH)',
      (await api.PATCH('/api/demo/phone_numbers', { body: [{ id: 2, user_id: 3 }] })).response
        .status,
    ],
    [
      'update_all (PUT)',
      (await api.PUT('/api/demo/phone_numbers', { body: [{ id: 3, user_id: 4 }] })).response.status,
    ],
    ['options', (await api.OPTIONS('/api/demo/phone_numbers')).response.status],
    [
      'destroy',
      (await api.DELETE('/api/demo/phone_numbers/{id}', { params: { path: { id: 20 } } })).response
        .status,
    ],
    [
      'destroy_all',
      (await api.DELETE('/api/demo/phone_numbers', { body: [21, 22] })).response.status,
    ],
  ];
}

export async function movies(api: Api): Promise<Outcome[]> {
  const path = { id: 1 };
  const list = await api.GET('/api/plain/movies', {
    params: { query: { 'main_genre.name': 'Drama' } },
  });
  // A bare list: no envelope.
  const names: string[] = (list.data ?? []).map((m) => m.name);
  return [
    ['index', list.response.status + (Array.isArray(names) ? 0 : 1000)],
    [
      'create',
      (
        await api.POST('/api/plain/movies', {
          body: { name: 'Typed Movie', genre_ids: [1], user_ids: [2] },
        })
      ).response.status,
    ],
    ['show', (await api.GET('/api/plain/movies/{id}', { params: { path } })).response.status],
    [
      'update (PATCH)',
      (await api.PATCH('/api/plain/movies/{id}', { params: { path }, body: { price: '7.5' } }))
        .response.status,
    ],
    [
      'update (PUT)',
      (await api.PUT('/api/plain/movies/{id}', { params: { path }, body: { main_genre_id: null } }))
        .response.status,
    ],
    ['options', (await api.OPTIONS('/api/plain/movies')).response.status],
    [
      'destroy',
      (await api.DELETE('/api/plain/movies/{id}', { params: { path: { id: 20 } } })).response
        .status,
    ],
  ];
}
