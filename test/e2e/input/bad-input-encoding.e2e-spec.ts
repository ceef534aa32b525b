/**
 * Bodies that are not the text they claim: bytes that are not UTF-8 are 400 naming the offset
 * (never stored as U+FFFD), a character set other than UTF-8 is 415 (never read as UTF-8 anyway),
 * and characters XML 1.0 cannot carry are refused naming the field, from JSON and XML alike, so
 * that no stored value reads differently in the two formats.
 */
import { useApp } from '../support/harness';
import { USERS, marbleRow } from '../support/fixtures';
import {
  BULK_INVALID,
  expectBulkInvalid,
  expectError,
  expectInvalid,
  expectJson,
  expectXml,
  xmlDocument,
  xmlMessage,
} from '../support/http';

const AMBER = marbleRow(1, 'Amber');
const MARBLES = '/api/demo/marbles';
const JSON_BODY = 'application/json';
const XML_BODY = 'application/xml';

const notUtf8 = (byte: string, offset: number) => ({
  message: `Request body is not valid UTF-8: byte 0x${byte} at offset ${offset}.`,
});
const charsetRefused = (charset: string) => ({
  message: `Character set "${charset}" is not supported; send UTF-8.`,
});
const cannotCarry = (code: string) => `May not contain U+${code}: XML 1.0 cannot carry it.`;

describe('write: bodies that are not the text they claim', () => {
  const t = useApp({ seedEach: { users: USERS, marbles: [AMBER] } });

  /** `bytes` as they are (superagent would write a Buffer under a JSON type as JSON), under `type`. */
  const post = (type: string, bytes: Buffer, path = MARBLES, method: 'post' | 'patch' = 'post') =>
    t
      .http()
      [method](path)
      .set('Content-Type', type)
      .serialize((body) => body)
      .send(bytes);
  const bytes = (...parts: (string | number[])[]) =>
    Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));

  it('should answer 400 naming the offset of the first byte that is not UTF-8, storing nothing', async () => {
    const cases: [Buffer, string, string, number][] = [
      // Latin-1 "é" in a JSON body said to be UTF-8.
      [bytes('{"name":"Caf', [0xe9], '"}'), JSON_BODY, 'E9', 12],
      // An overlong "/", an encoded surrogate, a sequence cut short at the end, a stray byte.
      [bytes('{"name":"', [0xc0, 0xaf], '"}'), JSON_BODY, 'C0', 9],
      [bytes('{"name":"ok","description":"', [0xed, 0xa0, 0x80], '"}'), JSON_BODY, 'ED', 28],
      [bytes('{"name":"€"}', [0xe2, 0x82]), JSON_BODY, 'E2', 14],
      [bytes('<marble><name>Caf', [0xe9], '</name></marble>'), XML_BODY, 'E9', 17],
      [bytes('<marble><name>', [0xff, 0xfe], '</name></marble>'), 'text/xml', 'FF', 14],
    ];
    const answers = [];
    for (const [body, type] of cases) {
      const res = await post(type, body);
      expectJson(res, 400);
      answers.push([type, res.body]);
    }
    expect(answers).toEqual(cases.map(([, type, byte, offset]) => [type, notUtf8(byte, offset)]));
    const xml = await post(JSON_BODY, bytes('{"name":"Caf', [0xe9], '"}')).set(
      'Accept',
      'application/xml',
    );
    expectXml(xml, 400);
    expect(xml.text).toBe(xmlMessage(notUtf8('E9', 12).message));
    const update = await post(JSON_BODY, bytes('{"name":"', [0x80], '"}'), `${MARBLES}/1`, 'patch');
    expectError(update, 400, notUtf8('80', 9));
    expect(await t.stored('marbles')).toEqual([AMBER]);
  });

  it('should answer 415 to a charset other than UTF-8, whatever the bytes are', async () => {
    const cases: [string, Buffer, string][] = [
      ['application/json; charset=latin1', bytes('{"name":"Caf', [0xe9], '"}'), 'latin1'],
      ['application/json;charset="UTF-16"', Buffer.from('{"name":"x"}', 'utf16le'), 'UTF-16'],
      ['application/json; charset=iso-8859-1', bytes('{"name":"ascii"}'), 'iso-8859-1'],
      ['application/xml; charset=utf-16le', bytes('<marble><name>x</name></marble>'), 'utf-16le'],
      [
        XML_BODY,
        bytes('<?xml version="1.0" encoding="ISO-8859-1"?><marble><name>x</name></marble>'),
        'ISO-8859-1',
      ],
    ];
    const answers = [];
    for (const [type, body] of cases) {
      const res = await post(type, body);
      expectJson(res, 415);
      answers.push([type, res.body]);
    }
    expect(answers).toEqual(cases.map(([type, , charset]) => [type, charsetRefused(charset)]));
    const xml = await post('text/xml; charset=windows-1252', bytes('<marble/>')).set(
      'Accept',
      'text/xml',
    );
    expectXml(xml, 415);
    expect(xml.text).toBe(xmlMessage(charsetRefused('windows-1252').message));
    expect(await t.stored('marbles')).toEqual([AMBER]);
  });

  it('should read UTF-8 however it is named, and multi-byte characters as they are', async () => {
    const names: [string, Buffer][] = [
      ['application/json; charset=utf-8', bytes('{"name":"Café"}')],
      ['application/json; charset="UTF-8"', bytes('{"name":"€ 😀"}')],
      [
        'application/xml; charset=UTF-8',
        bytes('<?xml version="1.0" encoding="utf-8"?><marble><name>Ærø</name></marble>'),
      ],
    ];
    const created = [];
    for (const [type, body] of names) {
      const res = await post(type, body);
      expectJson(res, 201);
      created.push(res.body.name);
    }
    expect(created).toEqual(['Café', '€ 😀', 'Ærø']);
    expect((await t.stored('marbles')).map((m) => m.name)).toEqual(['Amber', ...created]);
  });

  it('should refuse characters XML cannot carry, naming the field, alike from JSON and XML', async () => {
    const json = await t.raw(
      'post',
      MARBLES,
      JSON_BODY,
      '{"name":"a\\u0000b","description":"bell \\u0007"}',
    );
    const errors = {
      name: [cannotCarry('0000')],
      description: [cannotCarry('0007')],
    };
    expectInvalid(json, errors);
    const xml = await t.raw(
      'post',
      MARBLES,
      XML_BODY,
      '<marble><name>a\u0000b</name><description>bell \u0007</description></marble>',
    );
    expectInvalid(xml, errors);
    const update = await t.raw('patch', `${MARBLES}/1`, JSON_BODY, '{"name":"\\u001f"}');
    expectInvalid(update, { name: [cannotCarry('001F')] });
    // Noncharacters, sent as UTF-8 bytes in both formats.
    const noncharacter = await t.raw('patch', `${MARBLES}/1`, JSON_BODY, '{"name":"x\uffff"}');
    expectInvalid(noncharacter, { name: [cannotCarry('FFFF')] });
    const xmlNoncharacter = await t.raw(
      'patch',
      `${MARBLES}/1`,
      XML_BODY,
      '<marble><description>\ufffe</description></marble>',
    );
    expectInvalid(xmlNoncharacter, { description: [cannotCarry('FFFE')] });
    const bulk = await t.raw(
      'post',
      MARBLES,
      JSON_BODY,
      '[{"name":"fine"},{"name":"form\\ffeed"}]',
    );
    expectBulkInvalid(bulk, [null, { name: [cannotCarry('000C')] }]);
    expect(bulk.body.message).toBe(BULK_INVALID);
    // In XML, a reference to such a character is not well-formed at all.
    const reference = await t.raw('post', MARBLES, XML_BODY, '<marble><name>&#1;</name></marble>');
    expectError(reference, 400, {
      message: 'Malformed XML in request body: invalid character entity at line 1, column 18.',
    });
    expect(await t.stored('marbles')).toEqual([AMBER]);
  });

  it('should keep tab, line feed and carriage return, the same in JSON and XML', async () => {
    const text = 'a\tb\nc\rd';
    const created = await t.http().post(MARBLES).send({ name: 'Whitespace', description: text });
    expectJson(created, 201);
    expect(created.body.description).toBe(text);
    const xml = await t.http().get(`${MARBLES}/${created.body.id}.xml?only=description`);
    expect(xml.text).toBe(xmlDocument('<hash><description>a\tb\nc&#13;d</description></hash>'));
    expect((await t.stored('marbles'))[1].description).toBe(text);
  });
});
