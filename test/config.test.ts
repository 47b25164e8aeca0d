/** Settings derived from others at start-up. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { DEFAULT_QUOTAS } from '../src/core/quotas/quotas.js';

// A folder without porch.config.yaml, so only the environment given counts.
const folder = mkdtempSync(join(tmpdir(), 'porch-config-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const load = (env: Record<string, string>) => loadConfig({ DATABASE_URL: ':memory:', ...env }, folder);

describe('the public URL', () => {
  // Regression: HOST=0.0.0.0 alone advertised http://0.0.0.0:PORT links, which no client can open.
  it('uses loopback for a wildcard HOST without PORCH_PUBLIC_URL, with a warning naming PORCH_PUBLIC_URL', () => {
    const config = load({ HOST: '0.0.0.0', PORT: '8080' });
    expect(config.publicUrl).toBe('http://127.0.0.1:8080');
    expect(config.warnings).toHaveLength(1);
    expect(config.warnings[0]).toMatch(/HOST is 0\.0\.0\.0 .*PORCH_PUBLIC_URL is not set.*http:\/\/127\.0\.0\.1:8080/);
    expect(load({ HOST: '::', PORT: '8080' }).publicUrl).toBe('http://[::1]:8080');
  });

  it('is PORCH_PUBLIC_URL when set, without a warning', () => {
    const config = load({ HOST: '0.0.0.0', PORCH_PUBLIC_URL: 'https://porch.example.com/' });
    expect(config.publicUrl).toBe('https://porch.example.com');
    expect(config.warnings).toEqual([]);
  });

  it('refuses a PORCH_PUBLIC_URL every link would break on: a query, a fragment, credentials or another scheme', () => {
    for (const value of [
      'https://porch.example.com/porch?x=1',
      'https://porch.example.com/#f',
      'https://user:pw@porch.example.com',
      'ftp://porch.example.com',
    ]) {
      expect(() => load({ PORCH_PUBLIC_URL: value }), value).toThrow(/PORCH_PUBLIC_URL/);
    }
    expect(load({ PORCH_PUBLIC_URL: 'https://example.com/porch/' }).publicUrl).toBe('https://example.com/porch');
  });

  it('is the listen address when that is one clients can open', () => {
    expect(load({ HOST: '127.0.0.1', PORT: '3001' })).toMatchObject({ publicUrl: 'http://127.0.0.1:3001', warnings: [] });
    expect(load({ HOST: '::1' }).publicUrl).toBe('http://[::1]:3000');
  });
});

describe('webhooks.allow_hosts', () => {
  it('takes hosts as written in URLs, IPv6 with or without brackets, and refuses entries that could never match', () => {
    const path = join(folder, 'allow-hosts.yaml');
    writeFileSync(path, 'webhooks:\n  allow_hosts: [Hooks.Internal, 127.0.0.1, "[::1]", "fd00:0:0:0:0:0:0:5", "::ffff:127.0.0.1"]\n');
    // As the URL parser writes them, which is what the guard compares (regression: the long IPv6 form never matched).
    expect(load({ PORCH_CONFIG: path }).webhooks.allowHosts).toEqual(['hooks.internal', '127.0.0.1', '::1', 'fd00::5', '::ffff:7f00:1']);
    for (const entry of ['http://localhost:43202', 'localhost:8080', '127.0.0.1:43202', 'db:5432', 'hooks.internal/path', '[hooks.internal]', '[::1']) {
      writeFileSync(path, `webhooks:\n  allow_hosts: ["${entry}"]\n`);
      expect(() => load({ PORCH_CONFIG: path }), entry).toThrow(/allow_hosts\[0\].*host name or an IP address alone/);
    }
  });

  it('refuses a wildcard entry, saying entries are exact hosts (regression: "*" and "*.example.com" were accepted and never matched)', () => {
    const path = join(folder, 'allow-hosts-wildcard.yaml');
    for (const entry of ['*', '*.example.com', 'hooks.*', '10.0.0.*']) {
      writeFileSync(path, `webhooks:\n  allow_hosts: [hooks.internal, "${entry}"]\n`);
      expect(() => load({ PORCH_CONFIG: path }), entry).toThrow(/webhooks\.allow_hosts\[1\]: must be an exact host name or IP address: wildcards/);
    }
  });
});

describe('content quotas (limits.quotas)', () => {
  it('defaults every kind to the documented quotas and takes the ones a config file sets', () => {
    expect(load({}).quotas).toEqual(DEFAULT_QUOTAS);
    const path = join(folder, 'quotas.yaml');
    writeFileSync(path, 'limits:\n  quotas:\n    skills: { max_items: 5 }\n    context_cards: { max_bytes: 1000 }\n');
    const { quotas } = load({ PORCH_CONFIG: path });
    expect(quotas.skills).toEqual({ maxItems: 5, maxBytes: DEFAULT_QUOTAS.skills.maxBytes });
    expect(quotas.contextCards).toEqual({ maxItems: DEFAULT_QUOTAS.contextCards.maxItems, maxBytes: 1000 });
    writeFileSync(path, 'limits:\n  quotas:\n    personas: { max_items: 5 }\n');
    expect(() => load({ PORCH_CONFIG: path }), 'personas are context cards, not a kind of their own').toThrow(/limits\.quotas/);
  });
});

describe('webhook settings', () => {
  it('default to no allow-listed host and a 10 s attempt, take the file’s values, and name a bad one', () => {
    expect(load({}).webhooks).toEqual({ allowHosts: [], timeoutMs: 10_000, concurrency: 16, pollIntervalMs: 1_000 });
    const path = join(folder, 'webhooks.yaml');
    writeFileSync(path, 'webhooks:\n  allow_hosts: [127.0.0.1, hooks.internal]\n  timeout_ms: 2500\n');
    expect(load({ PORCH_CONFIG: path }).webhooks).toMatchObject({ allowHosts: ['127.0.0.1', 'hooks.internal'], timeoutMs: 2_500 });
    writeFileSync(path, 'webhooks:\n  timeout_ms: 5\n');
    expect(() => load({ PORCH_CONFIG: path })).toThrow(/webhooks\.timeout_ms/);
    writeFileSync(path, 'webhooks:\n  allow_hosts: 127.0.0.1\n');
    expect(() => load({ PORCH_CONFIG: path })).toThrow(/webhooks\.allow_hosts/);
  });
});

describe('the secret key', () => {
  it('is refused with the configuration when malformed, as a setting, never echoed (regression: "unexpected error")', () => {
    const malformed = 'not-32-bytes-of-anything-secret';
    let message = '';
    try {
      load({ PORCH_SECRET_KEY: malformed });
    } catch (err) {
      message = (err as Error).name === 'ConfigError' ? (err as Error).message : `not a ConfigError: ${String(err)}`;
    }
    expect(message).toContain('PORCH_SECRET_KEY: must be 32 random bytes written as 64 hex characters or as base64');
    expect(message).not.toContain(malformed);
    expect(load({ PORCH_SECRET_KEY: 'ab'.repeat(32) }).secretKey).toBe('ab'.repeat(32));
  });
});

/** The ConfigError message loading `env` fails with, or a note that it did not fail as one. */
function refusal(env: Record<string, string>): string {
  try {
    load(env);
  } catch (err) {
    return (err as Error).name === 'ConfigError' ? (err as Error).message : `not a ConfigError: ${String(err)}`;
  }
  return 'accepted';
}

describe('blank variables', () => {
  // Regression: compose files' PORT=${PORT} listened on a random port, and PORCH_MIN_CREDITS= let executions run at 0 credits.
  it('are unset, and take their defaults', () => {
    const config = load({ PORT: '', PORCH_MIN_CREDITS: ' ', HOST: '', OTEL_SDK_DISABLED: '' });
    expect(config).toMatchObject({ port: 3000, minimumTokens: 1_000, host: '127.0.0.1' });
  });

  // Regression: a PORCH_SECRET_KEY of spaces or a newline passed "must be set" and each host then used a key file of its own.
  it('leave PORCH_SECRET_KEY unset, which PostgreSQL refuses naming the variable', () => {
    for (const blank of ['', ' ', '\n']) {
      expect(refusal({ DATABASE_URL: 'postgres://porch:pw@db.internal/porch', PORCH_SECRET_KEY: blank }), JSON.stringify(blank)).toMatch(
        /^PORCH_SECRET_KEY must be set \(it is blank\) with PostgreSQL/,
      );
    }
    expect(load({ PORCH_SECRET_KEY: ' ' }).secretKey).toBeUndefined();
  });
});

describe('numeric variables', () => {
  // Regression: PORT=0x10 listened on port 16 and PORT=1e3 on 1000.
  it('take decimal digits only, as the CLI options do, naming the variable otherwise', () => {
    expect(refusal({ PORT: '0x10' })).toMatch(/PORT: must be a whole number written in decimal digits/);
    expect(refusal({ PORT: '1e3' })).toMatch(/PORT: must be a whole number/);
    expect(refusal({ PORCH_MIN_CREDITS: '1e3' })).toMatch(/PORCH_MIN_CREDITS: must be a decimal number/);
    expect(refusal({ PORT: '70000' })).toMatch(/PORT/);
    expect(load({ PORT: ' 8080 ', PORCH_MIN_CREDITS: '2.5' })).toMatchObject({ port: 8080, minimumTokens: 2_500 });
  });
});

describe('PORCH_PUBLIC_URL without a scheme', () => {
  // Regression: new URL() threw in the check and the CLI said "unexpected error: Invalid URL".
  it('is refused naming the variable', () => {
    for (const value of ['porch.example.com', 'notaurl', 'http://', 'https://exa mple.com']) {
      expect(refusal({ PORCH_PUBLIC_URL: value }), value).toMatch(/^Invalid environment: PORCH_PUBLIC_URL: must be an http or https URL/);
    }
  });
});

describe('PORCH_ALLOWED_ORIGINS', () => {
  // Regression: https://app.example.com/ never matched the Origin header https://app.example.com.
  it('holds origins as browsers send them, and refuses entries that are not origins', () => {
    expect(load({ PORCH_ALLOWED_ORIGINS: 'https://app.example.com/, http://LOCALHOST:6274, https://x.example.com:443, *' }).allowedOrigins).toEqual([
      'https://app.example.com',
      'http://localhost:6274',
      'https://x.example.com',
      '*',
    ]);
    for (const entry of ['app.example.com', 'https://app.example.com/path', 'https://app.example.com/?x=1', 'localhost:6274']) {
      expect(refusal({ PORCH_ALLOWED_ORIGINS: entry }), entry).toMatch(/^Invalid environment: PORCH_ALLOWED_ORIGINS: .* is not an origin/);
    }
  });
});

describe('messages', () => {
  // Regression: "must be one of ..., yes, no, " listed an empty choice.
  it('list the true/false spellings without an empty one', () => {
    expect(refusal({ OTEL_SDK_DISABLED: 'maybe' })).toMatch(/OTEL_SDK_DISABLED: must be one of [^\n]*yes, no$/);
  });

  // Regression: "Invalid AI configuration in X: Invalid AI configuration:".
  it('say "Invalid AI configuration" once', () => {
    const path = join(folder, 'bad-ai.yaml');
    writeFileSync(path, 'ai:\n  providers: 5\n');
    const message = refusal({ PORCH_CONFIG: path });
    expect(message).toMatch(/^Invalid AI configuration in .*bad-ai\.yaml:/);
    expect(message.match(/Invalid AI configuration/g)).toHaveLength(1);
  });
});
