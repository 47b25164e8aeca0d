import { describe, expect, it } from 'vitest';
import { ALPHANUMERIC, findingsOf, matchesOf, randomText } from './fixtures.js';

describe('credentials in URLs (secret.url_credentials)', () => {
  it('finds userinfo passwords in web and database URLs, whole URL as the match', () => {
    const password = randomText(ALPHANUMERIC, 14);
    const text = `https://deploy:${password}@ci.example.org/run and postgres://app:${password}@db.internal:5432/orders`;
    expect(matchesOf(text, 'secret.url_credentials')).toEqual([
      `https://deploy:${password}@ci.example.org/run`,
      `postgres://app:${password}@db.internal:5432/orders`,
    ]);
  });

  it('takes the last "@" as the end of the userinfo, so passwords may contain "@"', () => {
    const url = 'mongodb+srv://appuser:myR3alP@ssw0rd@cluster0.mongodb.net/mydb';
    expect(matchesOf(url, 'secret.url_credentials')).toEqual([url]);
  });

  it('reads a pasted, unencoded password holding characters that end a URL elsewhere', () => {
    const urls = [
      'postgres://billing:Wn4#tR8vQz2pLx@pg-primary.internal:5432/billing',
      'redis://:Hs9^uB3{kP7}mQ@cache.internal:6379/0',
      'mysql://report:Ty6|jD2`fL>9q<Zr@mysql.internal:3306/reports',
      "amqp://svc:Pq3'mV8!xN@rabbit.internal:5672/",
    ];
    const text = `DATABASE_URL=${urls[0]}\nREDIS_URL=${urls[1]}\n  url: "${urls[2]}"\nexport AMQP_URL=${urls[3]}`;
    expect(matchesOf(text, 'secret.url_credentials')).toEqual(urls);
    const findings = findingsOf(text);
    expect(findings.map((finding) => finding.rule_id)).toEqual(urls.map(() => 'secret.url_credentials'));
  });

  it('stops an unencoded password at the quote that opened the URL and skips templates in it', () => {
    expect(matchesOf("DB='postgres://app:Wn4'tR8@db.internal/x'", 'secret.url_credentials')).toEqual([]);
    expect(matchesOf('postgres://app:{{ .Values.db.password }}@db.internal/x', 'secret.url_credentials')).toEqual([]);
    expect(matchesOf('see https://docs.example.com:8443#setup or mail ops@example.com', 'secret.url_credentials')).toEqual([]);
  });

  it('finds a token used as the username', () => {
    const url = `https://${randomText(ALPHANUMERIC, 40)}:x-oauth-basic@github.com/org/repo.git`;
    expect(matchesOf(url, 'secret.url_credentials')).toEqual([url]);
  });

  it('keeps the credentials finding and drops the email-shaped part inside it', () => {
    const findings = findingsOf(`see https://user:${randomText(ALPHANUMERIC, 12)}@example.com/x`);
    expect(findings.map((finding) => finding.rule_id)).toEqual(['secret.url_credentials']);
  });

  it('does not report placeholders, templates, identical user and password, or short passwords', () => {
    const text = [
      'https://username:password@example.com/api',
      'https://${username}:${password}@api.example.com/v1',
      'https://{{user}}:{{pass}}@config.example.com',
      'https://YOUR_USERNAME:YOUR_PASSWORD@api.service.com',
      'postgres://postgres:postgres@localhost:5432/db',
      'https://user:abc@api.com/v1',
      'https://user:1111@service.com',
      'postgres://$(PGUSER):$(PGPASSWORD)@$(PGHOST)/$(PGDATABASE)',
    ].join('\n');
    expect(matchesOf(text, 'secret.url_credentials')).toEqual([]);
  });
});

describe('incoming webhook URLs (secret.webhook_url)', () => {
  it('finds Slack, Teams and Discord webhooks', () => {
    const slack = `https://hooks.slack.com/services/T${randomText(ALPHANUMERIC, 8)}/B${randomText(ALPHANUMERIC, 10)}/${randomText(ALPHANUMERIC, 24)}`;
    const discord = `https://discord.com/api/webhooks/123456789012345678/${randomText(ALPHANUMERIC, 60)}`;
    expect(matchesOf(`${slack}\n${discord}`, 'secret.webhook_url')).toEqual([slack, discord]);
  });

  it('does not report the same hosts without a webhook path', () => {
    expect(matchesOf('https://hooks.slack.com/ and https://discord.com/channels/1/2', 'secret.webhook_url')).toEqual([]);
  });
});
