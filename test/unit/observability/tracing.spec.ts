import {
  localSpan,
  newSpanId,
  newTraceId,
  parseTraceparent,
} from '../../../src/observability/tracing';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const SPAN = 'b7ad6b7169203331';

describe('parseTraceparent', () => {
  it('should read version 00 and keep tracestate', () => {
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-01`, 'a=1,b=2')).toEqual({
      traceId: TRACE,
      spanId: SPAN,
      flags: '01',
      state: 'a=1,b=2',
    });
  });

  it('should read a later version, ignoring the fields it adds', () => {
    expect(parseTraceparent(`cc-${TRACE}-${SPAN}-00-more`, undefined)).toEqual({
      traceId: TRACE,
      spanId: SPAN,
      flags: '00',
    });
  });

  it.each([
    ['missing', undefined],
    ['repeated', [`00-${TRACE}-${SPAN}-01`, `00-${TRACE}-${SPAN}-01`]],
    ['version ff', `ff-${TRACE}-${SPAN}-01`],
    ['zero trace id', `00-${'0'.repeat(32)}-${SPAN}-01`],
    ['zero span id', `00-${TRACE}-${'0'.repeat(16)}-01`],
    ['upper case', `00-${TRACE.toUpperCase()}-${SPAN}-01`],
    ['extra field in 00', `00-${TRACE}-${SPAN}-01-x`],
    ['short trace id', `00-${TRACE.slice(1)}-${SPAN}-01`],
  ])('should ignore a traceparent that is %s', (_what, header) => {
    expect(parseTraceparent(header, 'a=1')).toBeUndefined();
  });

  it('should drop a tracestate longer than 512 characters or with control characters', () => {
    expect(
      parseTraceparent(`00-${TRACE}-${SPAN}-01`, `a=${'x'.repeat(511)}`)!.state,
    ).toBeUndefined();
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-01`, 'a=1\tb')!.state).toBeUndefined();
  });
});

describe('ids', () => {
  it('should make 32 and 16 lower-case hex digits, different each time', () => {
    expect(newTraceId()).toMatch(/^[0-9a-f]{32}$/);
    expect(newSpanId()).toMatch(/^[0-9a-f]{16}$/);
    expect(newTraceId()).not.toBe(newTraceId());
    expect(newSpanId()).not.toBe(newSpanId());
  });

  it("should keep the caller's trace and flags in a local span, else a new unsampled trace", () => {
    const parent = { traceId: TRACE, spanId: SPAN, flags: '01' };
    expect(localSpan(parent)).toMatchObject({ traceId: TRACE, flags: '01' });
    expect(localSpan(parent).spanId).not.toBe(SPAN);
    expect(localSpan(undefined)).toMatchObject({ flags: '00' });
  });
});
