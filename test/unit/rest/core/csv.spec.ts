import {
  CSV_RENDERER,
  csvCell,
  csvRow,
  encodeCsv,
  pageLinks,
} from '../../../../src/rest/core/output/csv';
import * as field from '../../../../src/rest/core/fields';
import { Page } from '../../../../src/rest/core/paginator';
import { Message, RecordStream, RenderRequest } from '../../../../src/rest/core/output/render';
import { gadgets } from './gadgets';

const GADGETS = gadgets([field.string('name')]);

const ONE = { id: 1, name: 'Cog', user: { id: 2, login: 'bob' }, genres: [{ id: 1, name: 'A' }] };
const TWO = { id: 2, name: 'Nut', user: null, genres: [] };

const request = (query = ''): RenderRequest => ({
  method: 'GET',
  status: 200,
  url: () => ({ base: 'http://h/api/demo/gadgets.csv', query }),
  pathUrl: () => 'http://h/api/demo/gadgets',
  allowedMethods: () => ['GET'],
});

describe('csvCell', () => {
  it.each([
    [null, ''],
    [undefined, ''],
    [12, '12'],
    [-3, '-3'],
    [false, 'false'],
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['cr\rhere', '"cr\rhere"'],
    ['', ''],
  ])('should write %j as %j (RFC 4180)', (value, expected) => {
    expect(csvCell(value)).toBe(expected);
  });

  it.each([
    ['=1+1', "'=1+1"],
    ['+A1', "'+A1"],
    ['-2+3', "'-2+3"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tx', "'\tx"],
    ['\rx', '"\'\rx"'],
    ['=HYPERLINK("u")', '"\'=HYPERLINK(""u"")"'],
    ['-', "'-"],
    // A phone number as people write it: a spreadsheet would compute +1-555-010-0100 (-664).
    ['+1 555 0100', "'+1 555 0100"],
    ['+1-555-010-0100', "'+1-555-010-0100"],
    ['+44 (0)20 7946 0000', "'+44 (0)20 7946 0000"],
  ])('should escape %j, which a spreadsheet would run, as %j', (value, expected) => {
    expect(csvCell(value)).toBe(expected);
  });

  // A phone number in E.164 (`+` and digits only) is a plain number, not a formula.
  it.each(['-3.5', '+1', '-0', '12.50', '+15550100', '+442079460000'])(
    'should leave the number %j as it is',
    (value) => {
      expect(csvCell(value)).toBe(value);
    },
  );

  it('should write an array or object as its JSON, quoted', () => {
    expect(csvCell([{ id: 1 }])).toBe('"[{""id"":1}]"');
  });

  it('should end a row with CRLF', () => {
    expect(csvRow(['a', 1, null])).toBe('a,1,\r\n');
  });
});

describe('encodeCsv', () => {
  it('should flatten references into a column per field and write to-many lists as JSON', () => {
    expect(encodeCsv([ONE, TWO], GADGETS)).toBe(
      'id,name,user.id,user.login,genres\r\n' +
        '1,Cog,2,bob,"[{""id"":1,""name"":""A""}]"\r\n' +
        '2,Nut,,,[]\r\n',
    );
  });

  it('should keep the columns of the fields a query selects, a reference whole', () => {
    const selected = { id: 1, user: ONE.user };
    expect(encodeCsv([selected], GADGETS, 'only=id,user&page=2')).toBe(
      'id,user.id,user.login\r\n1,2,bob\r\n',
    );
    expect(encodeCsv([], GADGETS, 'except=genres')).toBe('id,name,user.id,user.login\r\n');
  });

  it('should write one record as one row, a bulk answer as its records, a message alone', () => {
    expect(encodeCsv(TWO, GADGETS)).toBe('id,name,user.id,user.login,genres\r\n2,Nut,,,[]\r\n');
    expect(encodeCsv(new Message('done', [TWO]), GADGETS)).toBe(
      'id,name,user.id,user.login,genres\r\n2,Nut,,,[]\r\n',
    );
    expect(encodeCsv(new Message('pong'), GADGETS)).toBe('message\r\npong\r\n');
  });
});

describe('CSV_RENDERER', () => {
  it('should put the next and previous pages of a page into Link, and name the download', () => {
    const page = new Page([ONE], 2, 1, 3, true, 'page');
    const headers: Record<string, string> = {};
    const body = CSV_RENDERER.result(page, {
      resource: GADGETS,
      request: request('page_size=1&page=2'),
      headers,
    });
    expect(body).toBe(
      'id,name,user.id,user.login,genres\r\n1,Cog,2,bob,"[{""id"":1,""name"":""A""}]"\r\n',
    );
    expect(headers).toEqual({
      'Content-Disposition': 'attachment; filename="gadgets.csv"',
      Link:
        '<http://h/api/demo/gadgets.csv?page_size=1&page=3>; rel="next", ' +
        '<http://h/api/demo/gadgets.csv?page_size=1&page=1>; rel="prev"',
    });
    expect(pageLinks(new Page([], 1, 1, 1, false, 'page'), 'http://h/x', '')).toBeUndefined();
  });

  it('should stream a RecordStream: the header row, then each batch as it comes', async () => {
    const stream = new RecordStream<Record<string, unknown>>([ONE], async function* () {
      yield [];
      yield [TWO];
    });
    const pieces: string[] = [];
    for await (const piece of CSV_RENDERER.stream!(stream, {
      resource: GADGETS,
      request: request('only=id'),
      headers: {},
    }))
      pieces.push(piece);
    expect(pieces).toEqual(['id\r\n', '1\r\n', '2\r\n']);
  });

  it('should answer errors in JSON', () => {
    expect(CSV_RENDERER.error({ status: 404, body: { message: 'Gadget 9 not found.' } })).toBe(
      '{"message":"Gadget 9 not found."}',
    );
  });
});
