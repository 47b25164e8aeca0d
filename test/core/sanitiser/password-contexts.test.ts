import { describe, expect, it } from 'vitest';
import { createSanitiser } from '../../../src/core/sanitiser/index.js';

const sanitiser = createSanitiser();
const matchesOf = (text: string, ruleId: string) =>
  sanitiser
    .scan(text)
    .findings.filter((finding) => finding.rule_id === ruleId)
    .map((finding) => finding.match);

describe('passwords outside key=value', () => {
  it.each([
    ['sshpass -p', 'sshpass -p Xk9!mQ2wLp ssh ops@bastion', 'Xk9!mQ2wLp'],
    ['redis-cli -a', 'redis-cli -h 10.1.1.5 -a "Hh7#kLm2Qp" ping', 'Hh7#kLm2Qp'],
    ['--requirepass', 'docker run redis redis-server --requirepass Zr4nQ8vLx2Mp', 'Zr4nQ8vLx2Mp'],
    ['openssl pass:', 'openssl pkcs12 -in a.p12 -passin pass:Op3n$sl-In', 'Op3n$sl-In'],
    ['mysql -p glued', 'mysqldump -uroot -pDump3r#99 shop > shop.sql', 'Dump3r#99'],
    ['Spanish prose', 'Mi contraseña es Sol2024!mar, no la compartas', 'Sol2024!mar'],
    ['German prose after other words', 'Das Kennwort für den Drucker: Druck3r-Raum7', 'Druck3r-Raum7'],
    ['Russian prose', 'пароль: Zima#2025snow', 'Zima#2025snow'],
    ['Norwegian prose', 'Passord: Fj0rd#2025lys', 'Fj0rd#2025lys'],
    ['Dutch prose, upper case', 'WACHTWOORD Tulp3n!veld9', 'Tulp3n!veld9'],
    ['French prose, a word of several', 'mot de passe : Cr0issant#7b', 'Cr0issant#7b'],
  ])('finds the password of %s', (_carrier, text, password) => {
    expect(matchesOf(text, 'secret.password_assignment')).toEqual([password]);
  });

  it.each([
    ['mysql -p with a space, which prompts and names the database', 'mysql -u app -p orders_db'],
    ['a number after a flag', 'sshpass -p 1234 ssh host'],
    ['prose that ends the clause before any value', 'Forgot your password? Reset it at the portal; code R2d2-C3po!x'],
    ['a password word followed by a plain word', 'Das Passwort vergessen? Kein Problem.'],
    ['a placeholder in prose', 'contraseña: <your-password>'],
    ['a template in a Helm value', '- name: DB_PASSWORD\n  value: "{{ .Values.db.password }}"'],
  ])('does not report %s', (_why, text) => {
    expect(matchesOf(text, 'secret.password_assignment')).toEqual([]);
  });

  it.each([
    ['after a parenthesised aside holding a ticket id', 'Shared admin password (reset after ticket SEC-2291): `Vq_t^R8m!ZpKwL3d`', 'Vq_t^R8m!ZpKwL3d'],
    ['after the host it is for and a colon', 'root password for web-07: Hn5#kT9vQz2w', 'Hn5#kT9vQz2w'],
    ['after a dated aside and "is"', 'The password (rotated 2026-10-14) is Jb3$wX8nLq5t', 'Jb3$wX8nLq5t'],
    ['after a host id and "is"', 'The password for db-02 is Autumn-2026!', 'Autumn-2026!'],
  ])('reads a prose password %s, not the id before it', (_shape, text, password) => {
    expect(matchesOf(text, 'secret.password_assignment')).toEqual([password]);
  });

  it.each([
    ['a full-width colon after the Chinese word', '数据库密码：Hq4#vT9mWz2k', 'Hq4#vT9mWz2k'],
    ['a full-width colon after the Japanese word', '管理者パスワード：Rk8$nP3xLw5q', 'Rk8$nP3xLw5q'],
    ['a Turkish word in title case', 'Şifre: Tm6!bQ9zKx4v', 'Tm6!bQ9zKx4v'],
    ['a Polish word in capitals', 'HASŁO: Wd3%kL8pNq7s', 'Wd3%kL8pNq7s'],
    ['a Spanish word in capitals', 'CONTRASEÑA: Jc5#rM2tXv9h', 'Jc5#rM2tXv9h'],
    ['a Swedish definite form', 'Lösenordet är Ps7#gK4wBn2x', 'Ps7#gK4wBn2x'],
    ['a Turkish possessive form', 'Wifi şifresi: Yb2@dF6mQs8r', 'Yb2@dF6mQs8r'],
  ])('finds a password after %s', (_shape, text, password) => {
    expect(matchesOf(text, 'secret.password_assignment')).toEqual([password]);
  });

  it('does not take an id or a date in prose for the password', () => {
    expect(matchesOf('the password for web-01 expired on 2026-11-02 again', 'secret.password_assignment')).toEqual([]);
  });

  it('reads a Helm env entry whose value sits two lines below the name', () => {
    const text = 'env:\n  - name: SMTP_PASSWORD\n    # rotated monthly\n    value: Sm7p-R0tat3d!\n';
    expect(matchesOf(text, 'secret.password_assignment')).toEqual(['Sm7p-R0tat3d!']);
  });

  it.each([
    ['a quoted name with blanks before it', '- name:   "app.dbPwd"\n  value: Qw8!zRt5-Lm\n', 'Qw8!zRt5-Lm'],
    ['the password word in the middle of the name', "- name: 'LEGACY_SMTP_PASS_V2'\n  value: 'Vr4#nTq9wZ'\n", 'Vr4#nTq9wZ'],
    ['a name holding two password words', '- name: PW_PASSPHRASE\n  value: Ph7$kLw2Qz\n', 'Ph7$kLw2Qz'],
  ])('reads a Helm pair with %s', (_shape, text, password) => {
    expect(matchesOf(text, 'secret.password_assignment')).toEqual([password]);
  });

  it('does not read a pair whose name is too far from name: (more than ten blanks)', () => {
    expect(matchesOf('- name:           DB_PASSWORD\n  value: Qw8!zRt5-Lm\n', 'secret.password_assignment')).toEqual([]);
  });

  it("reports a Docker config's auth when it decodes to user:password, not when it holds a placeholder", () => {
    const encoded = Buffer.from('robot$ci:Qe8#vN2xLp5t').toString('base64');
    expect(matchesOf(`{"auths":{"ghcr.io":{"auth":"${encoded}"}}}`, 'secret.docker_auth')).toEqual([encoded]);
    const placeholder = Buffer.from('username:password').toString('base64');
    expect(matchesOf(`{"auths":{"ghcr.io":{"auth":"${placeholder}"}}}`, 'secret.docker_auth')).toEqual([]);
  });

  it('stays linear on a megabyte of password words and command names on one line', () => {
    for (const unit of ['contraseña: ', 'mysql -p', '- name: x\n', 'phone,']) {
      const started = performance.now();
      sanitiser.scan(unit.repeat(Math.ceil(1_048_576 / unit.length)));
      expect(performance.now() - started).toBeLessThan(5_000);
    }
  });
});
