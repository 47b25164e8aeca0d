import { describe, expect, it } from 'vitest';
import { findingsOf, matchesOf } from './fixtures.js';

describe('email rule (pii.email)', () => {
  it('finds addresses in prose, with plus tags, subdomains and mailto links', () => {
    const text = 'Write to jane.doe+news@mail.example.co.uk or <mailto:ops@corp.io>. Thanks, bob_smith@gmail.com.';
    expect(matchesOf(text, 'pii.email')).toEqual(['jane.doe+news@mail.example.co.uk', 'ops@corp.io', 'bob_smith@gmail.com']);
  });

  it('reports warn severity with the email label', () => {
    const [finding] = findingsOf('contact: anna@example.org', 'pii.email');
    expect(finding?.severity).toBe('warn');
    expect(finding?.label).toBe('Email address');
  });

  it('does not report package versions, asset names, npm scopes or decorators', () => {
    const text = 'pnpm@10.4.1 logo@2x.png lodash@4.17.21 import x from "@types/node"; @Component({})';
    expect(matchesOf(text, 'pii.email')).toEqual([]);
  });

  it('does not report the userinfo of a URL or an SSH remote as an address', () => {
    const text = 'https://username:password@example.com/x and git@github.com:org/repo.git';
    expect(matchesOf(text, 'pii.email')).toEqual([]);
  });

  it('does not report the ids of Message-ID headers indented, quoted or in a roff comment (regression: git log output and man pages)', () => {
    const text = ['    Message-ID: <54574397.4060000@DemoRecorder.com>', '> In-Reply-To: <abc.123@mail.example.org>', '.\\" Message-ID: <2752@sun.uucp>'].join(
      '\n',
    );
    expect(matchesOf(text, 'pii.email')).toEqual([]);
    expect(matchesOf('    Reported-by: <ada@example.com>', 'pii.email')).toEqual(['ada@example.com']);
  });

  it('requires a dotted domain with an alphabetic top-level domain', () => {
    expect(matchesOf('root@localhost and user@host.123', 'pii.email')).toEqual([]);
  });

  it('finds an address whose @ is percent-encoded in a URL or a request line (regression: nothing found)', () => {
    expect(matchesOf('GET /subscribe?email=jane.doe%40example.org HTTP/1.1', 'pii.email')).toEqual(['jane.doe%40example.org']);
    expect(matchesOf('https://mail.example.com/u?addr=t.nguyen%2Bpromo%40example.org&c=88', 'pii.email')).toEqual(['t.nguyen%2Bpromo%40example.org']);
    expect(matchesOf('GET /users/ana%40example.com/profile', 'pii.email')).toEqual(['ana%40example.com']);
  });

  it('does not read an encoded npm scope or an encoded parameter as an address', () => {
    expect(matchesOf('https://cdn.jsdelivr.net/npm/%40babel/core', 'pii.email')).toEqual([]);
    expect(matchesOf('q=from%3Djane%40example.org', 'pii.email')).toEqual([]);
  });
});
