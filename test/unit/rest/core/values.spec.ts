import { canonicalDecimal, isoTimestamp } from '../../../../src/rest/core/values';

describe('canonicalDecimal', () => {
  it.each([
    ['4.00', '4.0'],
    ['9.230', '9.23'],
    ['4000', '4000.0'],
    ['0.50', '0.5'],
    ['-1.50', '-1.5'],
    ['-0.00', '0.0'],
    ['007.10', '7.1'],
    // A leading plus sign is dropped; a bare fraction gets a zero before the point.
    ['+12.50', '12.5'],
    ['.25', '0.25'],
    // Zero stays 0.0; zeros inside the number stay.
    ['0', '0.0'],
    ['100.050', '100.05'],
    // Every digit of a value a float cannot hold exactly is kept.
    ['12345678901234567890.12345678901234567890', '12345678901234567890.1234567890123456789'],
  ])('should turn %s into %s', (input, expected) => {
    expect(canonicalDecimal(input)).toBe(expected);
  });
});

describe('isoTimestamp', () => {
  it.each([
    {
      given: '2024-05-01 12:34:56.789',
      iso: '2024-05-01T12:34:56.789Z',
      what: 'milliseconds kept',
    },
    { given: '2024-05-01 12:34:56', iso: '2024-05-01T12:34:56.000Z', what: '.000 added' },
    {
      given: '2024-05-01 12:34:56.5',
      iso: '2024-05-01T12:34:56.500Z',
      what: 'short fraction padded',
    },
    {
      given: '2024-05-01 12:34:56.123456',
      iso: '2024-05-01T12:34:56.123Z',
      what: 'microseconds cut',
    },
  ])('should turn the database timestamp $given into ISO 8601 UTC ($what)', ({ given, iso }) => {
    expect(isoTimestamp(given)).toBe(iso);
  });

  it('should format a Date in UTC with milliseconds', () => {
    expect(isoTimestamp(new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 6)))).toBe(
      '2024-01-02T03:04:05.006Z',
    );
  });
});
