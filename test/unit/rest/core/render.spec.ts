import * as field from '../../../../src/rest/core/fields';
import { Page } from '../../../../src/rest/core/paginator';
import {
  Message,
  RequestUrl,
  encodeError,
  renderBody,
} from '../../../../src/rest/core/output/render';
import { gadgets } from './gadgets';

const GADGETS = gadgets([
  field.string('name', { searchable: true }),
  field.decimal('price', { precision: 6, scale: 2 }),
  field.boolean('is_active'),
  field.timestamp('created_at'),
]);

/** A record in its API form, as a service hands it to the renderer. */
const FIRST = {
  id: 1,
  name: 'Blue & Gold',
  price: '4.0',
  is_active: false,
  created_at: '2024-05-01T12:00:00.123Z',
  user: { id: 3, login: 'ann' },
  genres: [],
};

/** No owner (the key is left out) and no price. */
const SECOND = {
  id: 2,
  name: 'Red',
  price: null,
  is_active: true,
  created_at: '2024-05-02T08:30:00.000Z',
  genres: [{ id: 1, name: 'Action' }],
};

const FIRST_JSON =
  '{"id":1,"name":"Blue & Gold","price":"4.0","is_active":false,' +
  '"created_at":"2024-05-01T12:00:00.123Z","user":{"id":3,"login":"ann"},"genres":[]}';
const SECOND_JSON =
  '{"id":2,"name":"Red","price":null,"is_active":true,' +
  '"created_at":"2024-05-02T08:30:00.000Z","genres":[{"id":1,"name":"Action"}]}';

const FIRST_XML =
  '<id type="integer">1</id><name>Blue &amp; Gold</name><price type="decimal">4.0</price>' +
  '<is-active type="boolean">false</is-active>' +
  '<created-at type="dateTime">2024-05-01T12:00:00Z</created-at>' +
  '<user><id type="integer">3</id><login>ann</login></user><genres type="array"/>';
const SECOND_XML =
  '<id type="integer">2</id><name>Red</name><price nil="true"/>' +
  '<is-active type="boolean">true</is-active>' +
  '<created-at type="dateTime">2024-05-02T08:30:00Z</created-at>' +
  '<genres type="array"><genre><id type="integer">1</id><name>Action</name></genre></genres>';

const DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n';

const URL: RequestUrl = {
  base: 'http://localhost:3000/api/demo/gadgets',
  query: 'ordering=-price&page=2&search=e',
};

describe('renderBody', () => {
  describe('a Page', () => {
    const page = new Page([FIRST, SECOND], 2, 2, 5, true, 'page');

    it('should render the envelope as JSON', () => {
      expect(renderBody(page, 'json', GADGETS, () => URL)).toBe(
        '{"count":5,"page":2,"page_size":2,"total_pages":3,' +
          '"next":"http://localhost:3000/api/demo/gadgets?ordering=-price&page=3&search=e",' +
          '"previous":"http://localhost:3000/api/demo/gadgets?ordering=-price&page=1&search=e",' +
          `"results":[${FIRST_JSON},${SECOND_JSON}]}`,
      );
    });

    it('should render the envelope as XML under hash with result items', () => {
      expect(renderBody(page, 'xml', GADGETS, () => ({ ...URL, base: `${URL.base}.xml` }))).toBe(
        DECLARATION +
          '<hash><count type="integer">5</count><page type="integer">2</page>' +
          '<page-size type="integer">2</page-size><total-pages type="integer">3</total-pages>' +
          '<next>http://localhost:3000/api/demo/gadgets.xml?ordering=-price&amp;page=3&amp;search=e</next>' +
          '<previous>http://localhost:3000/api/demo/gadgets.xml?ordering=-price&amp;page=1&amp;search=e</previous>' +
          `<results type="array"><result>${FIRST_XML}</result><result>${SECOND_XML}</result></results>` +
          '</hash>\n',
      );
    });

    it('should render an uncounted empty page without count, total_pages or links', () => {
      const empty = new Page([], 1, 30, undefined, false, 'page');
      const url = { base: URL.base, query: '' };
      expect(renderBody(empty, 'json', GADGETS, () => url)).toBe(
        '{"page":1,"page_size":30,"results":[]}',
      );
      expect(renderBody(empty, 'xml', GADGETS, () => url)).toBe(
        DECLARATION +
          '<hash><page type="integer">1</page><page-size type="integer">30</page-size>' +
          '<results type="array"/></hash>\n',
      );
    });
  });

  describe('a bare array', () => {
    it('should render a JSON array', () => {
      expect(renderBody([FIRST, SECOND], 'json', GADGETS, () => URL)).toBe(
        `[${FIRST_JSON},${SECOND_JSON}]`,
      );
    });

    it('should render XML objects with object items', () => {
      expect(renderBody([FIRST, SECOND], 'xml', GADGETS, () => URL)).toBe(
        DECLARATION +
          `<objects type="array"><object>${FIRST_XML}</object><object>${SECOND_XML}</object></objects>\n`,
      );
    });

    it('should render an empty array', () => {
      expect(renderBody([], 'json', GADGETS, () => URL)).toBe('[]');
      expect(renderBody([], 'xml', GADGETS, () => URL)).toBe(
        DECLARATION + '<objects type="array"/>\n',
      );
    });
  });

  describe('a Message', () => {
    const message = new Message('Bulk create successful.', [FIRST, SECOND]);

    it('should render the message and its records as JSON', () => {
      expect(renderBody(message, 'json', GADGETS, () => URL)).toBe(
        `{"message":"Bulk create successful.","records":[${FIRST_JSON},${SECOND_JSON}]}`,
      );
    });

    it('should render the message and its records as XML with record items', () => {
      expect(renderBody(message, 'xml', GADGETS, () => URL)).toBe(
        DECLARATION +
          '<hash><message>Bulk create successful.</message>' +
          `<records type="array"><record>${FIRST_XML}</record><record>${SECOND_XML}</record></records>` +
          '</hash>\n',
      );
    });

    it('should render a message without records', () => {
      expect(renderBody(new Message('pong'), 'json', GADGETS, () => URL)).toBe(
        '{"message":"pong"}',
      );
      expect(renderBody(new Message('pong'), 'xml', GADGETS, () => URL)).toBe(
        DECLARATION + '<hash><message>pong</message></hash>\n',
      );
    });

    it('should render a message when the route has no resource', () => {
      expect(renderBody(new Message('child pong'), 'xml', undefined, () => URL)).toBe(
        DECLARATION + '<hash><message>child pong</message></hash>\n',
      );
    });
  });

  describe('one record', () => {
    it('should render it as JSON', () => {
      expect(renderBody(SECOND, 'json', GADGETS, () => URL)).toBe(SECOND_JSON);
    });

    it('should render it as XML under hash', () => {
      expect(renderBody(FIRST, 'xml', GADGETS, () => URL)).toBe(
        DECLARATION + `<hash>${FIRST_XML}</hash>\n`,
      );
    });

    it('should not render the foreign key behind a nested object', () => {
      expect(renderBody({ ...SECOND, user_id: 3 }, 'xml', GADGETS, () => URL)).toBe(
        DECLARATION + `<hash>${SECOND_XML}</hash>\n`,
      );
    });
  });
});

describe('encodeError', () => {
  const body = { message: 'Validation failed.', errors: { name: ['is required.'] } };

  it('should encode an error body as JSON', () => {
    expect(encodeError('json', { status: 400, body })).toBe(
      '{"message":"Validation failed.","errors":{"name":["is required."]}}',
    );
  });

  it('should encode an error body as XML under hash', () => {
    expect(encodeError('xml', { status: 400, body })).toBe(
      DECLARATION +
        '<hash><message>Validation failed.</message>' +
        '<errors><name type="array"><name>is required.</name></name></errors></hash>\n',
    );
  });

  it('should encode an error without field errors', () => {
    expect(encodeError('xml', { status: 404, body: { message: 'Marble 99 not found.' } })).toBe(
      DECLARATION + '<hash><message>Marble 99 not found.</message></hash>\n',
    );
  });
});
