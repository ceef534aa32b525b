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
  ])('should turn %s into %s', (input, expected) => {
    expect(canonicalDecimal(input)).toBe(expected);
  });

  it('should drop a leading plus sign', () => {
    expect(canonicalDecimal('+12.50')).toBe('12.5');
  });

  it('should give a bare fraction a zero before the point', () => {
    expect(canonicalDecimal('.25')).toBe('0.25');
  });

  it('should keep zero as 0.0', () => {
    expect(canonicalDecimal('0')).toBe('0.0');
  });

  it('should keep every digit of a value a float cannot hold exactly', () => {
    expect(canonicalDecimal('12345678901234567890.12345678901234567890')).toBe(
      '12345678901234567890.1234567890123456789',
    );
  });

  it('should keep zeros inside the number', () => {
    expect(canonicalDecimal('100.050')).toBe('100.05');
  });
});

describe('isoTimestamp', () => {
  it('should turn a database timestamp with milliseconds into ISO 8601 UTC', () => {
    expect(isoTimestamp('2024-05-01 12:34:56.789')).toBe('2024-05-01T12:34:56.789Z');
  });

  it('should add .000 to a timestamp without a fraction', () => {
    expect(isoTimestamp('2024-05-01 12:34:56')).toBe('2024-05-01T12:34:56.000Z');
  });

  it('should pad a short fraction to milliseconds', () => {
    expect(isoTimestamp('2024-05-01 12:34:56.5')).toBe('2024-05-01T12:34:56.500Z');
  });

  it('should cut a microsecond fraction to milliseconds', () => {
    expect(isoTimestamp('2024-05-01 12:34:56.123456')).toBe('2024-05-01T12:34:56.123Z');
  });

  it('should format a Date in UTC with milliseconds', () => {
    expect(isoTimestamp(new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 6)))).toBe(
      '2024-01-02T03:04:05.006Z',
    );
  });
});
