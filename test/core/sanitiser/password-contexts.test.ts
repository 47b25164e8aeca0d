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

describe('password flags and files of more tools', () => {
  it.each([
    ['docker login -p', 'docker login -u ci-bot -p Dk7#rT2mQz9w registry.example.io', 'Dk7#rT2mQz9w'],
    ['docker login --password', 'docker login --username ci --password Dk7#rT2mQz9w reg.io', 'Dk7#rT2mQz9w'],
    ['sqlcmd -P', 'sqlcmd -S sql01 -U sa -P Sq1!Adm1nPw -Q "SELECT 1"', 'Sq1!Adm1nPw'],
    ['ldapsearch -w', 'ldapsearch -x -D "cn=admin,dc=corp" -w Ld4p&Bind77 -b dc=corp', 'Ld4p&Bind77'],
    ['keytool -storepass', 'keytool -list -keystore ks.jks -storepass Tr5tSt0re!x', 'Tr5tSt0re!x'],
    ['keytool -keypass', 'keytool -genkeypair -alias a -keypass Kp8#vLq2Wz -keystore ks.jks', 'Kp8#vLq2Wz'],
    ['htpasswd -b -c', 'htpasswd -b -c /etc/nginx/.htpasswd admin Gr4f#Ana2026', 'Gr4f#Ana2026'],
    ['htpasswd -nbB', 'htpasswd -nbB admin Gr4f#Ana2026', 'Gr4f#Ana2026'],
    ['smbclient -U user%password', 'smbclient //fs01/finance -U reports%Smb9$Fin4nce', 'Smb9$Fin4nce'],
    ['mongosh -p', 'mongosh "mongodb://db01" -u admin -p M0ng0!Adm9x', 'M0ng0!Adm9x'],
    ['az login -p', 'az login --service-principal -u 3f0c1a2b -p Az.Sp~8kQ2vLx --tenant corp', 'Az.Sp~8kQ2vLx'],
    ['net use, password after /user', 'net use Z: \\\\files01\\archive /user:CORP\\svc Bkp#2026!arch', 'Bkp#2026!arch'],
    ['net use, password before /user', 'net use \\\\files01\\ipc$ Bkp#2026!arch /user:CORP\\svc', 'Bkp#2026!arch'],
    ['mysql -p glued to a value starting with -', 'mysql -uroot -p-Xk29dLq7Wm -h 127.0.0.1', '-Xk29dLq7Wm'],
    ['redis-cli -a and a value starting with -', 'redis-cli -h cache01 -a -6Qx0mJ#LCWzq INFO memory', '-6Qx0mJ#LCWzq'],
  ])('finds the password of %s (regression: missed)', (_carrier, text, password) => {
    expect(matchesOf(text, 'secret.password_assignment')).toEqual([password]);
  });

  it.each([
    ['ports after docker run -p', 'docker run -d -p 8080:80 -p 127.0.0.1:9000:9000 nginx'],
    ['a port after ssh -p', 'ssh -p 2222 deploy.example.com'],
    ["sqlcmd's lower-case -p (print statistics)", 'sqlcmd -S db -p 1 -Q "SELECT 1"'],
    ['docker login reading the password from stdin', 'echo $PW | docker login --password-stdin -u ci registry.example.io'],
    ['mongosh -p alone, which prompts', 'mongosh -p --authenticationDatabase admin'],
    ['a certificate file after az login -p', 'az login --service-principal -u 3f0c1a2b -p ~/certs/sp.pem --tenant corp'],
    ['keytool reading the password from the environment', 'keytool -list -keystore ks.jks -storepass:env STORE_PW'],
    ['htpasswd without -b, which prompts', 'htpasswd -c /etc/nginx/.htpasswd admin'],
    ['net use prompting with *', 'net use Z: \\\\files01\\archive * /user:CORP\\svc'],
    ['an option after redis-cli -a', 'redis-cli -a --no-auth-warning ping'],
  ])('does not report %s', (_why, text) => {
    expect(matchesOf(text, 'secret.password_assignment')).toEqual([]);
  });

  it('finds the password of a .pgpass entry, by its line shape or under the file name (regression: missed)', () => {
    expect(matchesOf('db-prod.internal:5432:billing:billing_rw:Pg7vR2xQ9mTk4Lw\n', 'secret.password_assignment')).toEqual(['Pg7vR2xQ9mTk4Lw']);
    const file = '$ cat ~/.pgpass\nlocalhost:5544:app:app:Xk29\\:dLq7mRt\nreplica.local:*:*:repl:Qw8zLp2rTn5v\n';
    expect(matchesOf(file, 'secret.password_assignment')).toEqual(['Xk29\\:dLq7mRt', 'Qw8zLp2rTn5v']);
  });

  it('does not read times, IPv6 addresses or an entry inside a sentence as .pgpass', () => {
    for (const text of ['at 12:30:45:00:Xk29dLq7mRt', 'fe80::1:5432:a:b:Xk29dLq7mRt', 'host db:5432:billing:user:Xk29dLq7mRt trailing words']) {
      expect(matchesOf(text, 'secret.password_assignment'), text).toEqual([]);
    }
  });
});
