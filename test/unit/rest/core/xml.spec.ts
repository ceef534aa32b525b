import { parseStringPromise } from 'xml2js';
import {
  ANY,
  arrayShape,
  encodeXml,
  escapeText,
  member,
  objectShape,
  scalarShape,
  xmlName,
} from '../../../../src/rest/core/output/xml';
import { singular } from '../../../../src/rest/core/names';

/** The whole document for a root element, as the encoder writes it. */
const doc = (body: string) => `<?xml version="1.0" encoding="UTF-8"?>\n${body}\n`;

/** Any character outside XML 1.0's `Char` production (lone surrogates included). */
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

/** Parses the document (throws when it is not well-formed) and checks every character is legal. */
async function parseWellFormed(xml: string): Promise<unknown> {
  expect(xml).not.toMatch(NOT_XML_CHAR);
  return parseStringPromise(xml);
}

const user = objectShape([
  member('id', scalarShape('integer')),
  member('login', scalarShape('string')),
]);

const record = objectShape([
  member('id', scalarShape('integer')),
  member('name', scalarShape('string')),
  member('is_primary', scalarShape('boolean')),
  member('price', scalarShape('decimal')),
  member('created_at', scalarShape('dateTime')),
  member('user', user),
  member('users', arrayShape(singular('users'), user)),
  member('genres', arrayShape(singular('genres'), ANY)),
  member('picture', ANY),
]);

describe('encodeXml with a shape', () => {
  it('should start with the XML declaration and end with a newline', () => {
    expect(encodeXml('hash', { id: 1 }, record)).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<hash><id type="integer">1</id></hash>\n',
    );
  });

  it('should put integer, boolean, decimal and dateTime type attributes and none on strings', () => {
    const xml = encodeXml(
      'hash',
      {
        id: 7,
        name: 'Blue',
        is_primary: false,
        price: '12.5',
        created_at: '2024-05-01T12:00:00.000Z',
      },
      record,
    );
    expect(xml).toBe(
      doc(
        '<hash><id type="integer">7</id><name>Blue</name>' +
          '<is-primary type="boolean">false</is-primary><price type="decimal">12.5</price>' +
          '<created-at type="dateTime">2024-05-01T12:00:00Z</created-at></hash>',
      ),
    );
  });

  it('should write true booleans as true', () => {
    expect(encodeXml('hash', { is_primary: true }, record)).toBe(
      doc('<hash><is-primary type="boolean">true</is-primary></hash>'),
    );
  });

  it('should drop the fraction of a dateTime', () => {
    expect(encodeXml('hash', { created_at: '2024-05-01T23:59:59.999Z' }, record)).toBe(
      doc('<hash><created-at type="dateTime">2024-05-01T23:59:59Z</created-at></hash>'),
    );
  });

  it('should write null as an empty element with nil="true", whatever its declared type', () => {
    expect(
      encodeXml(
        'hash',
        { id: 1, price: null, created_at: null, user: null, picture: null },
        record,
      ),
    ).toBe(
      doc(
        '<hash><id type="integer">1</id><price nil="true"/><created-at nil="true"/>' +
          '<user nil="true"/><picture nil="true"/></hash>',
      ),
    );
  });

  it('should omit keys whose value is undefined', () => {
    expect(encodeXml('hash', { id: 1, name: undefined, user: undefined }, record)).toBe(
      doc('<hash><id type="integer">1</id></hash>'),
    );
  });

  it('should write an empty array as a self-closing element with type="array"', () => {
    expect(encodeXml('hash', { genres: [], users: [] }, record)).toBe(
      doc('<hash><users type="array"/><genres type="array"/></hash>'),
    );
  });

  it('should write a nested object as an element with children and no type', () => {
    expect(encodeXml('hash', { user: { id: 3, login: 'ann' } }, record)).toBe(
      doc('<hash><user><id type="integer">3</id><login>ann</login></user></hash>'),
    );
  });

  it('should name array items by the singular of the array name', () => {
    expect(
      encodeXml(
        'hash',
        {
          users: [
            { id: 1, login: 'ann' },
            { id: 2, login: 'bob' },
          ],
        },
        record,
      ),
    ).toBe(
      doc(
        '<hash><users type="array"><user><id type="integer">1</id><login>ann</login></user>' +
          '<user><id type="integer">2</id><login>bob</login></user></users></hash>',
      ),
    );
  });

  it('should write members in the order of the shape and leave out undeclared keys', () => {
    expect(encodeXml('hash', { secret: 'x', name: 'Blue', id: 4 }, record)).toBe(
      doc('<hash><id type="integer">4</id><name>Blue</name></hash>'),
    );
  });

  it('should encode a root array with its items', () => {
    const list = arrayShape('object', objectShape([member('id', scalarShape('integer'))]));
    expect(encodeXml('objects', [{ id: 1 }, { id: 2 }], list)).toBe(
      doc(
        '<objects type="array"><object><id type="integer">1</id></object>' +
          '<object><id type="integer">2</id></object></objects>',
      ),
    );
  });

  it('should encode an empty root array as a self-closing element', () => {
    const list = arrayShape('object', objectShape([member('id', scalarShape('integer'))]));
    expect(encodeXml('objects', [], list)).toBe(doc('<objects type="array"/>'));
  });

  it('should sanitise item names given to arrayShape', () => {
    expect(arrayShape('phone_number', ANY)).toEqual({
      kind: 'array',
      itemOpen: '<phone-number',
      itemClose: '</phone-number>',
      of: ANY,
    });
  });

  it('should precompute the dashed tag of a member', () => {
    expect(member('radius_mm', ANY)).toMatchObject({
      key: 'radius_mm',
      shape: ANY,
      open: '<radius-mm',
      close: '</radius-mm>',
      nil: '<radius-mm nil="true"/>',
    });
  });

  it("should precompute a scalar member's start tag with its type attribute", () => {
    expect(member('radius_mm', scalarShape('integer')).start).toBe('<radius-mm type="integer">');
    expect(member('is_primary', scalarShape('boolean')).start).toBe('<is-primary type="boolean">');
    expect(member('name', scalarShape('string')).start).toBe('<name>');
  });

  it('should write scalar members of every type, null and absent ones as the generic path does', () => {
    const shape = objectShape([
      member('id', scalarShape('integer')),
      member('name', scalarShape('string')),
      member('price', scalarShape('decimal')),
      member('at', scalarShape('dateTime')),
      member('gone', scalarShape('string')),
      member('none', scalarShape('integer')),
    ]);
    const value = {
      id: 3,
      name: 'a & <b>\r',
      price: '1.5',
      at: '2024-05-01T12:00:00.123Z',
      none: null,
    };
    expect(encodeXml('hash', value, shape)).toBe(
      doc(
        '<hash><id type="integer">3</id><name>a &amp; &lt;b&gt;&#13;</name>' +
          '<price type="decimal">1.5</price><at type="dateTime">2024-05-01T12:00:00Z</at>' +
          '<none nil="true"/></hash>',
      ),
    );
  });

  it('should keep surrogate pairs and replace lone surrogates in the fast path too', () => {
    expect(escapeText('plain text, nothing to do')).toBe('plain text, nothing to do');
    expect(escapeText('emoji \u{1F600} kept')).toBe('emoji \u{1F600} kept');
    expect(escapeText('lone \uD800 and \uDC00')).toBe('lone \uFFFD and \uFFFD');
  });

  it('should produce a document that parses back to the same data', async () => {
    const xml = encodeXml(
      'hash',
      { id: 1, name: 'Blue', users: [{ id: 2, login: 'bob' }], genres: [], picture: null },
      record,
    );
    expect(await parseWellFormed(xml)).toEqual({
      hash: {
        id: [{ _: '1', $: { type: 'integer' } }],
        name: ['Blue'],
        users: [
          {
            $: { type: 'array' },
            user: [{ id: [{ _: '2', $: { type: 'integer' } }], login: ['bob'] }],
          },
        ],
        genres: [{ $: { type: 'array' } }],
        picture: [{ $: { nil: 'true' } }],
      },
    });
  });
});

describe('encodeXml without a shape (inferred)', () => {
  it('should encode a message body', () => {
    expect(encodeXml('hash', { message: 'pong' })).toBe(
      doc('<hash><message>pong</message></hash>'),
    );
  });

  it('should encode a validation error body with an array of messages per field', () => {
    const body = {
      message: 'Validation failed.',
      errors: {
        email: ['is not a valid e-mail address.', 'has already been taken.'],
        radius_mm: ['must be an integer.'],
      },
    };
    expect(encodeXml('hash', body)).toBe(
      doc(
        '<hash><message>Validation failed.</message><errors>' +
          '<email type="array"><email>is not a valid e-mail address.</email>' +
          '<email>has already been taken.</email></email>' +
          '<radius-mm type="array"><radius-mm>must be an integer.</radius-mm></radius-mm>' +
          '</errors></hash>',
      ),
    );
  });

  it('should encode bulk errors as an errors array of error items with nil for valid items', () => {
    const body = {
      message: 'Bulk create failed.',
      errors: [null, { name: ['is required.'] }, null],
    };
    expect(encodeXml('hash', body)).toBe(
      doc(
        '<hash><message>Bulk create failed.</message><errors type="array">' +
          '<error nil="true"/>' +
          '<error><name type="array"><name>is required.</name></name></error>' +
          '<error nil="true"/></errors></hash>',
      ),
    );
  });

  it('should infer integer, decimal and boolean types from JavaScript values', () => {
    expect(encodeXml('hash', { count: 3, ratio: 0.5, ok: true, off: false })).toBe(
      doc(
        '<hash><count type="integer">3</count><ratio type="decimal">0.5</ratio>' +
          '<ok type="boolean">true</ok><off type="boolean">false</off></hash>',
      ),
    );
  });

  it('should infer null, empty arrays, nested objects and skip undefined', () => {
    expect(
      encodeXml('hash', { a: null, categories: [], nested: { is_ok: true }, gone: undefined }),
    ).toBe(
      doc(
        '<hash><a nil="true"/><categories type="array"/>' +
          '<nested><is-ok type="boolean">true</is-ok></nested></hash>',
      ),
    );
  });

  it('should name inferred array items by the singular of the array name', () => {
    expect(encodeXml('hash', { categories: ['x', 'y'], ids: [1, 2] })).toBe(
      doc(
        '<hash><categories type="array"><category>x</category><category>y</category></categories>' +
          '<ids type="array"><id type="integer">1</id><id type="integer">2</id></ids></hash>',
      ),
    );
  });

  it('should parse back an error body', async () => {
    const xml = encodeXml('hash', { message: 'Bad.', errors: [null, { price: ['too big.'] }] });
    expect(await parseWellFormed(xml)).toEqual({
      hash: {
        message: ['Bad.'],
        errors: [
          {
            $: { type: 'array' },
            error: [
              { $: { nil: 'true' } },
              { price: [{ $: { type: 'array' }, price: ['too big.'] }] },
            ],
          },
        ],
      },
    });
  });
});

describe('escaping', () => {
  it('should escape &, < and >', () => {
    expect(escapeText('Tom & Jerry <b>bold</b> a>b')).toBe(
      'Tom &amp; Jerry &lt;b&gt;bold&lt;/b&gt; a&gt;b',
    );
  });

  it('should escape the end of a CDATA section', () => {
    expect(escapeText(']]>')).toBe(']]&gt;');
  });

  it('should write carriage returns as a character reference and keep tabs and newlines', () => {
    expect(escapeText('a\r\nb\tc')).toBe('a&#13;\nb\tc');
  });

  it('should leave quotes as they are in text', () => {
    expect(escapeText(`"it's"`)).toBe(`"it's"`);
  });

  it('should return plain text unchanged', () => {
    expect(escapeText('Blue marble №5 😀')).toBe('Blue marble №5 😀');
  });

  it('should replace control characters with U+FFFD', () => {
    expect(escapeText('a\u0000b\u0001c\u0008d\u000Be\u000Cf\u001Fg')).toBe(
      'a\uFFFDb\uFFFDc\uFFFDd\uFFFDe\uFFFDf\uFFFDg',
    );
  });

  it('should replace lone surrogates with U+FFFD and keep surrogate pairs', () => {
    expect(escapeText('x\uD800y\uDC00z\uD83D\uDE00')).toBe('x\uFFFDy\uFFFDz\uD83D\uDE00');
  });

  it('should replace the non-characters U+FFFE and U+FFFF', () => {
    expect(escapeText('a\uFFFEb\uFFFF')).toBe('a\uFFFDb\uFFFD');
  });

  it('should escape strings in a shaped record', () => {
    const shape = objectShape([member('name', scalarShape('string'))]);
    expect(encodeXml('hash', { name: '<a href="x">&</a>' }, shape)).toBe(
      doc('<hash><name>&lt;a href="x"&gt;&amp;&lt;/a&gt;</name></hash>'),
    );
  });

  it('should keep the document well-formed whatever text it carries', async () => {
    const hostile =
      '</name><evil attr="1">&amp;&#0;<![CDATA[x]]>\r\n\u0000\u0007\u001B\uDFFF\uD800\uFFFE<?pi?><!--c-->';
    const shape = objectShape([member('name', scalarShape('string'))]);
    const xml = encodeXml('hash', { name: hostile, message: hostile }, shape);
    const parsed = await parseWellFormed(xml);
    expect(parsed).toEqual({
      hash: {
        name: [
          '</name><evil attr="1">&amp;&#0;<![CDATA[x]]>\r\n\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD<?pi?><!--c-->',
        ],
      },
    });
  });

  it('should keep an inferred error body well-formed whatever its keys and values', async () => {
    const body = {
      message: 'Unknown field <x> & \u0001.',
      errors: {
        '<evil attr="1">': ['unknown & <bad>'],
        '1&2': ['a\uD800'],
        'xmlns:foo': ['b'],
        '': ['c'],
        'a b\u0000': ['d'],
      },
    };
    const xml = encodeXml('hash', body);
    expect(xml).toBe(
      doc(
        '<hash><message>Unknown field &lt;x&gt; &amp; \uFFFD.</message><errors>' +
          '<field--evil-attr--1-- type="array"><field--evil-attr--1-->unknown &amp; &lt;bad&gt;' +
          '</field--evil-attr--1--></field--evil-attr--1-->' +
          '<field-1-2 type="array"><field-1-2>a\uFFFD</field-1-2></field-1-2>' +
          '<xmlns-foo type="array"><xmlns-foo>b</xmlns-foo></xmlns-foo>' +
          '<field- type="array"><field->c</field-></field->' +
          '<a-b- type="array"><a-b->d</a-b-></a-b->' +
          '</errors></hash>',
      ),
    );
    const parsed = (await parseWellFormed(xml)) as { hash: { errors: object[] } };
    expect(Object.keys(parsed.hash.errors[0])).toEqual([
      'field--evil-attr--1--',
      'field-1-2',
      'xmlns-foo',
      'field-',
      'a-b-',
    ]);
  });
});

describe('xmlName', () => {
  it.each([
    ['is_primary', 'is-primary'],
    ['created_at', 'created-at'],
    ['page_size', 'page-size'],
    ['id', 'id'],
    ['user.login', 'user.login'],
    ['Name2', 'Name2'],
  ])('should turn %j into %j', (key, name) => {
    expect(xmlName(key)).toBe(name);
  });

  it.each([
    ['<script>', 'field--script-'],
    ['a b', 'a-b'],
    ['x:y', 'x-y'],
    ['a"b', 'a-b'],
    ['a/b', 'a-b'],
    ['1st', 'field-1st'],
    ['-x', 'field--x'],
    ['.x', 'field-.x'],
    ['_x', 'field--x'],
    ['', 'field-'],
    ['ñame', 'field--ame'],
    ['a\u0000b', 'a-b'],
    ['a\uD800', 'a-'],
  ])('should make the hostile key %j into the valid name %j', (key, name) => {
    expect(xmlName(key)).toBe(name);
    expect(xmlName(key)).toMatch(/^[A-Za-z][A-Za-z0-9._-]*$/);
  });
});

describe('singular', () => {
  it.each([
    ['results', 'result'],
    ['users', 'user'],
    ['genres', 'genre'],
    ['records', 'record'],
    ['errors', 'error'],
    ['objects', 'object'],
    ['categories', 'category'],
    ['phone_numbers', 'phone_number'],
    ['data', 'data'],
    ['email', 'email'],
  ])('should turn %s into %s', (plural, single) => {
    expect(singular(plural)).toBe(single);
  });
});
