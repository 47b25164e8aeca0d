import { describe, expect, it } from 'vitest';
import { findingsOf, matchesOf } from './fixtures.js';

describe('URL rule (pii.url)', () => {
  it('finds URLs and leaves sentence punctuation and unbalanced brackets outside', () => {
    const text = 'See https://www.example.se/, (http://example.org/a?b=1). Also [docs](https://en.wikipedia.org/wiki/Foo_(bar)).';
    expect(matchesOf(text, 'pii.url')).toEqual(['https://www.example.se/', 'http://example.org/a?b=1', 'https://en.wikipedia.org/wiki/Foo_(bar)']);
  });

  it('reports info severity', () => {
    expect(findingsOf('https://example.com', 'pii.url')[0]?.severity).toBe('info');
  });

  it('does not report a scheme without a host', () => {
    expect(matchesOf('file:/// and http:// alone', 'pii.url')).toEqual([]);
  });
});
