/**
 * The caller's W3C `tracestate` as Porch reads it (core/telemetry/traceparent.ts): kept whole and
 * in its order when every list member is well-formed, dropped whole when any is not or when the
 * list is longer than the specification allows, so what Porch passes on is always a list some
 * vendor wrote.
 */
import { describe, expect, it } from 'vitest';
import { parseTracestate } from '../../../src/core/telemetry/traceparent.js';

const serialized = (header: string) => parseTracestate(header)?.serialize();

describe('parseTracestate', () => {
  it('keeps every member in its order, without the optional whitespace and empty members', () => {
    expect(serialized('vendor=abc,other=1')).toBe('vendor=abc,other=1');
    expect(serialized(' congo=t61rcWkgMzE ,\t, rojo=00f067aa0ba902b7 ')).toBe('congo=t61rcWkgMzE,rojo=00f067aa0ba902b7');
    expect(serialized('tenant1@vendor=a value with spaces,k-*/_9=~!')).toBe('tenant1@vendor=a value with spaces,k-*/_9=~!');
    expect(parseTracestate('vendor=abc')?.get('vendor')).toBe('abc');
  });

  it('keeps 32 members and a list longer than 512 characters, which the specification asks to pass on', () => {
    const members = Array.from({ length: 32 }, (_, index) => `k${index}=${'v'.repeat(40)}`);
    expect(serialized(members.join(','))).toBe(members.join(','));
  });

  it('drops the whole header when any member is malformed, a key repeats or there are more than 32 members', () => {
    const tooMany = Array.from({ length: 33 }, (_, index) => `k${index}=v`).join(',');
    for (const header of [
      '',
      ' , ',
      'vendor',
      'vendor=',
      '=abc',
      'Vendor=abc',
      '1vendor=abc',
      'vendor=a=b',
      'vendor=abc,other=caf\u00e9',
      'vendor=abc,vendor=def',
      `${'k'.repeat(257)}=v`,
      `vendor=${'v'.repeat(257)}`,
      'tenant@Vendor=abc',
      `tenant@${'v'.repeat(15)}=abc`,
      tooMany,
    ]) {
      expect(parseTracestate(header), JSON.stringify(header)).toBeUndefined();
    }
  });

  it('moves a member it changes to the front, as the specification asks of a writer', () => {
    const state = parseTracestate('a=1,b=2,c=3');
    expect(state?.set('c', '9').serialize()).toBe('c=9,a=1,b=2');
    expect(state?.unset('b').serialize()).toBe('a=1,c=3');
    expect(state?.serialize(), 'unchanged: a list is immutable').toBe('a=1,b=2,c=3');
  });
});
