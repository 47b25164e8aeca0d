import { describe, expect, it } from 'vitest';
import { findingsOf, matchesOf } from './fixtures.js';

describe('IP address rule (pii.ip_address)', () => {
  it('finds IPv4 and IPv6 addresses, including private ranges', () => {
    const text = 'client 203.0.113.42 via 10.0.0.7; v6 2001:db8:85a3::8a2e:370:7334 and 6e40:4041:c617:e898:c11:40d2:c669:2eb4.';
    expect(matchesOf(text, 'pii.ip_address')).toEqual(['203.0.113.42', '10.0.0.7', '2001:db8:85a3::8a2e:370:7334', '6e40:4041:c617:e898:c11:40d2:c669:2eb4']);
  });

  it('reports info severity', () => {
    expect(findingsOf('from 203.0.113.42', 'pii.ip_address')[0]?.severity).toBe('info');
  });

  it('skips addresses after a version word whatever separator or white space follows it', () => {
    const text = 'version: 10.4.2.1, Build = 10.4.2.2, ver. 10.4.2.3, version\u00a010.4.2.4, build:\t10.4.3.2, but client=10.4.2.5 and reverse=10.4.3.1';
    expect(matchesOf(text, 'pii.ip_address')).toEqual(['10.4.2.5', '10.4.3.1']);
  });

  it('does not report version numbers as addresses', () => {
    expect(matchesOf('version 1.2.3.4, v2.0.1.7, release 10.4.2.1, chrome 120.0.6099.109, 1.3.6.1.4.1', 'pii.ip_address')).toEqual([]);
  });

  it('does not report loopback, unspecified, broadcast or netmask addresses', () => {
    expect(matchesOf('127.0.0.1 0.0.0.0 255.255.255.255 255.255.255.0 ::1 ::', 'pii.ip_address')).toEqual([]);
  });

  it('does not report out-of-range octets, leading zeros, times or MAC addresses', () => {
    expect(matchesOf('300.1.2.3 01.84.17.61 at 10:30:45 mac 00:1A:2B:3C:4D:5E std::vector', 'pii.ip_address')).toEqual([]);
  });
});
