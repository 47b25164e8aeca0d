import { describe, expect, it } from 'vitest';
import { ALPHANUMERIC, BASE64, findingsOf, matchesOf, randomText, summarise } from './fixtures.js';

const secrets = (text: string) => findingsOf(text).filter((finding) => finding.rule_id.startsWith('secret.'));

describe('password assignments (secret.password_assignment)', () => {
  it('finds passwords in code, config, JSON, XML, CLI flags and comparisons', () => {
    const text = [
      'db_password = "Tr0ub4dor&3"',
      'DB_PASS=hunter2hunter',
      '"password": "correct-horse-9"',
      '<add key="SmtpPassword" value="Prestigitariu$"/>',
      'Connect-VIServer -Server vc -User admin -Password VMware1!',
      'if creds.Secret != "open-sesame" {',
      'The password is "centipede"',
    ].join('\n');
    expect(matchesOf(text, 'secret.password_assignment'), summarise(findingsOf(text))).toEqual([
      'Tr0ub4dor&3',
      'hunter2hunter',
      'correct-horse-9',
      'Prestigitariu$',
      'VMware1!',
      'open-sesame',
      'centipede',
    ]);
  });

  it('does not report placeholder passwords', () => {
    const text = 'password=changeme\nPASSWORD="your_password"\npassword: "<password>"\npwd = "xxxxxx"\npassword = "********"';
    expect(secrets(text), summarise(secrets(text))).toEqual([]);
  });

  it('does not report template or environment references', () => {
    const text =
      'password=${DB_PASSWORD}\napi_key: ${API_KEY}\npassword = os.environ["PW"]\npassword: {{ .Values.password }}\nPASSWORD=$(cat /run/secret)\napi_key = process.env.API_KEY';
    expect(secrets(text), summarise(secrets(text))).toEqual([]);
  });

  it('does not report code that reads a password, form labels or short values', () => {
    const text =
      "password = request.form['password']\nusernameLabel: 'Username', passwordLabel: 'Password:'\npassword = \"123\"\nconst passwordField = form.get('password');";
    expect(secrets(text), summarise(secrets(text))).toEqual([]);
  });
});

describe('connection strings inside string literals', () => {
  const password = `${randomText(ALPHANUMERIC, 12, 5)}_q`;

  it('finds a password segment that opens a string, also when the string is built in pieces', () => {
    const text = [
      `conn.Open("Provider=SQLOLEDB.1;User ID=app_user; " & "Password =${password};Initial Catalog=Sales;")`,
      `var cs = "Password=${password};Server=db1";`,
    ].join('\n');
    expect(matchesOf(text, 'secret.password_assignment'), summarise(findingsOf(text))).toEqual([password, password]);
  });

  it('does not report a segment whose value is concatenated in, a label or an interpolation', () => {
    const text = 'cs = "Password=" + password + ";"\nlabel = "Password: "\ntext << "Password=#{password}, "\nif ("password==" + x)';
    expect(secrets(text), summarise(secrets(text))).toEqual([]);
  });
});

describe('values cut off before their closing quote', () => {
  it('finds a one-word value running to the end of the text or line', () => {
    const value = randomText(ALPHANUMERIC, 32, 9);
    const text = `api_token = "${value}\nclient_secret: '${value}`;
    expect(matchesOf(text, 'secret.generic_secret'), summarise(findingsOf(text))).toEqual([value, value]);
  });

  it('does not read words or a string continued on the next line as a value', () => {
    const text = `secret_hint = "Use the ${randomText(ALPHANUMERIC, 20, 4)} one\ntoken = "\napi_key = "${randomText(ALPHANUMERIC, 20, 6)}\\\n  continued"`;
    expect(secrets(text), summarise(secrets(text))).toEqual([]);
  });
});

describe('generic secret assignments (secret.generic_secret)', () => {
  it('finds high-entropy values under secret, token and key names in any notation', () => {
    const value = randomText(ALPHANUMERIC, 32);
    const text = [
      `API_KEY=${value}`,
      `clientSecret: "${value}"`,
      `auth_token => '${value}'`,
      `"x-api-key": "${value}"`,
      `rawg TOKEN ${value}`,
      `boxSECRET-${value}`,
    ].join('\n');
    expect(matchesOf(text, 'secret.generic_secret'), summarise(findingsOf(text))).toEqual([value, value, value, value, value, value]);
  });

  it('finds a typed password with a backslash that is no regular expression', () => {
    expect(matchesOf('password = "Tr0ub\\dor&3"', 'secret.password_assignment')).toEqual(['Tr0ub\\dor&3']);
  });

  it('finds quoted values with brackets or a lone angle bracket, and human-typed secrets with symbols', () => {
    const bracketed = `7D}/vY${randomText(ALPHANUMERIC, 10, 12)})T;W5]E>q`;
    const typed = 'staging#billing';
    const text = `jwt_secret: '${bracketed}'\nJWT:\n  secret: "${typed}"`;
    expect(matchesOf(text, 'secret.generic_secret'), summarise(findingsOf(text))).toEqual([bracketed, typed]);
  });

  it('does not report expressions, regular expressions or resource names under a secret name', () => {
    const text = [
      'api_secret = load_secret(name)',
      'client_secret = creds[0]',
      'secretName: tls-cert-staging',
      'secret: "billing-prod-credentials"',
      'const TOKEN_CHARS = "[A-Za-z0-9._~+/-]+=*";',
      "createToken('GTE0', '^\\\\s*>=\\\\s*0\\\\.0\\\\.0\\\\s*$')",
      "redact({ paths: ['user.password', 'data[0].secret'] })",
      'pass `vm.constants.DONT_CONTEXTIFY` as the option',
      'secret = "Math.random().toString(36)"',
      'api_token = "uuid4().hex[:32]"',
      'secret = "items[i].secretValue"',
      'secret = "window[\'secretKey123\']"',
      'api_key = "(foo|bar)baz123"',
      'secret_files = "**/*.enc.yaml"',
      'token: "#csrf-token-input"',
      'password: "v => !!v || \'Required\'"',
      'password: "Must be > 8 characters"',
    ].join('\n');
    expect(secrets(text), summarise(secrets(text))).toEqual([]);
  });

  it('does not report identifiers in code: camelCase and PascalCase names, bind parameters, type names (regression: blocked as secrets)', () => {
    const text = [
      'body.max_tokens = maxOutputTokens;',
      'refreshToken: refreshTokenFromCookie,',
      'Secret: webhookSecretEnv,',
      'auth_token: AuthTokenService',
      'WHERE api_key = :apiKeyParam',
      'estimateTokens: estimateChatTokens',
      'interface T { readonly pass: number; }',
      'pass: Boolean',
    ].join('\n');
    expect(secrets(text), summarise(secrets(text))).toEqual([]);
    // What a person or a generator makes is still found: alternating case, digits, passwords of words.
    expect(matchesOf('secret: AbCdEfGhIjKlMnOp', 'secret.generic_secret')).toEqual(['AbCdEfGhIjKlMnOp']);
    expect(matchesOf('api_key = "sk9aB3xQ7mP2kL"', 'secret.generic_secret')).toEqual(['sk9aB3xQ7mP2kL']);
    expect(matchesOf('password: CorrectHorseBattery', 'secret.password_assignment')).toEqual(['CorrectHorseBattery']);
  });

  it('does not report test results, man page markup, ChangeLog entries, pass/fail messages or constants (regression: thousands of blocks in /usr/share/doc)', () => {
    const text = [
      'PASS: gdb.ada/assign_1.exp: changing the language to ada',
      'PASS: addr2line -f option',
      '    --- PASS: TestToken/expired (0.00s)',
      'password \\fIstring\\fR',
      '\\fB\\-\\-key\\-file\\fR=\\fIKEY_FILE\\fR',
      '* src/chpasswd.c: Likewise.',
      '- 118_arm_pass_all.dpatch: Regenerated.',
      '"pass": "No se usan roles abstractos",',
      'instead pass PNG_TRANSFORM_EXPAND_16 to the interface.',
      "} else if (typeof key === 'function') {",
    ].join('\n');
    expect(secrets(text), summarise(secrets(text))).toEqual([]);
    // Settings still are: YAML, logfmt pairs, an env prefix to a command, a value before a comment.
    expect(matchesOf('pass: Xy7kP2mQ9w', 'secret.password_assignment')).toEqual(['Xy7kP2mQ9w']);
    expect(matchesOf('user=bob password=Xy7kP2mQ9w ip=10.0.0.1', 'secret.password_assignment')).toEqual(['Xy7kP2mQ9w']);
    expect(matchesOf('PASSWORD=Xy7kP2mQ9w ./run.sh', 'secret.password_assignment')).toEqual(['Xy7kP2mQ9w']);
    expect(matchesOf('db_password: Tr0ub4dor&3 # prod', 'secret.password_assignment')).toEqual(['Tr0ub4dor&3']);
  });

  it('reads an unquoted value through an & that separates nothing, and stops at one that does (regression: half a password redacted)', () => {
    expect(matchesOf('DB_PASSWORD=Tr0ub4dor&3xyzQ', 'secret.password_assignment')).toEqual(['Tr0ub4dor&3xyzQ']);
    expect(matchesOf('pwd=Tr0ub4dor&amp;3xy', 'secret.password_assignment')).toEqual(['Tr0ub4dor&amp;3xy']);
    expect(matchesOf('jdbc:mysql://h/db?user=app&password=Xy7kP2mQ9w&ssl=true', 'secret.password_assignment')).toEqual(['Xy7kP2mQ9w']);
    expect(matchesOf('<a href="/login?pwd=Xy7kP2mQ9w&amp;next=/home">', 'secret.password_assignment')).toEqual(['Xy7kP2mQ9w']);
    expect(matchesOf('password=Xy7kP2mQ9w && echo ok', 'secret.password_assignment')).toEqual(['Xy7kP2mQ9w']);
  });

  it('does not report low-entropy or single-word values', () => {
    const text = 'api_key = "aaaaaaaaaaaaaaaaaaaa"\ntoken: abcabcabcabcabcabc\nsecret_key = "user_profile_settings"\nAPI_TOKEN=true';
    expect(secrets(text), summarise(secrets(text))).toEqual([]);
  });

  it('does not report names that describe a secret rather than hold it', () => {
    const value = randomText(ALPHANUMERIC, 32);
    const text = `token_url = "https://auth.example.com/token"\nsecret_name: ${value}\nprivate_key_id = "${value}"\npublic_key = "${value}"\nmax_tokens = 4096`;
    expect(secrets(text), summarise(secrets(text))).toEqual([]);
  });

  it('does not report a bare map key named "key"', () => {
    expect(secrets(`{"key": "${randomText(ALPHANUMERIC, 24)}"}`)).toEqual([]);
  });

  it('does not report base64 that decodes to readable text', () => {
    const encoded = Buffer.from('dummy text data data data').toString('base64');
    expect(secrets(`ANY_KEY = ${encoded}`)).toEqual([]);
  });
});

describe('vendor-owned names', () => {
  it('finds an AWS secret access key by its variable name and exact length', () => {
    const key = randomText(BASE64, 40);
    expect(matchesOf(`aws_secret_access_key = ${key}`, 'secret.aws_secret_access_key')).toEqual([key]);
  });

  it('reports nothing for an AWS secret name whose value does not have the AWS format', () => {
    expect(secrets(`AWS_SECRET_ACCESS_KEY = ${randomText(BASE64, 56)}==`)).toEqual([]);
  });

  it('finds an .npmrc auth token without an entropy gate, but not an environment reference', () => {
    expect(matchesOf('//registry.npmjs.org/:_authToken=111111aaaaaaaaaaaaaaaaaaaaa', 'secret.npmrc_auth')).toEqual(['111111aaaaaaaaaaaaaaaaaaaaa']);
    expect(secrets('//npm.pkg.github.com/:_authToken=${NPM_TOKEN}')).toEqual([]);
  });

  it('reports Azure tenant and client ids at info severity', () => {
    const uuid = '0f4b2c1e-7a9d-4c3b-9e8f-1a2b3c4d5e6f';
    const findings = findingsOf(`AZURE_TENANT_ID=${uuid}`);
    expect(findings.map((finding) => [finding.rule_id, finding.severity])).toEqual([['secret.azure_identifier', 'info']]);
  });
});

describe('authorization headers (secret.bearer_token)', () => {
  it('finds bearer tokens and basic credentials', () => {
    const token = randomText(ALPHANUMERIC, 40);
    const basic = Buffer.from('deploy:s3cr3t-pa55').toString('base64');
    expect(matchesOf(`-H "Authorization: Bearer ${token}" -H "Authorization: Basic ${basic}"`, 'secret.bearer_token')).toEqual([token, basic]);
  });

  it('does not report placeholders after Bearer or a Basic value that is not user:password', () => {
    const notCredentials = Buffer.from('just some words here').toString('base64');
    expect(secrets(`Authorization: Bearer <token>\nAuthorization: Bearer $TOKEN\nBasic ${notCredentials}`)).toEqual([]);
  });
});

describe('name/value pairs (Kubernetes env lists, ECS task definitions)', () => {
  it('judges the value of a YAML env entry as the assignment of its name would be', () => {
    const awsKey = randomText(BASE64, 40);
    const jwtSecret = randomText(ALPHANUMERIC, 32, 11);
    const apiToken = randomText(ALPHANUMERIC, 24, 13);
    const text = [
      'spec:',
      '  containers:',
      '    - name: billing',
      '      env:',
      '        - name: AWS_SECRET_ACCESS_KEY',
      `          value: ${awsKey}`,
      '        - name: JWT_SECRET',
      '          # rotated by the platform team',
      `          value: "${jwtSecret}"`,
      '        - name: API_TOKEN',
      `          value: '${apiToken}'`,
      '        - name: DB_PW',
      '          value: Lq4!vHs8-Tn2',
    ].join('\n');
    expect(secrets(text).map((finding) => `${finding.rule_id}:${finding.match}`)).toEqual([
      `secret.aws_secret_access_key:${awsKey}`,
      `secret.generic_secret:${jwtSecret}`,
      `secret.generic_secret:${apiToken}`,
      'secret.password_assignment:Lq4!vHs8-Tn2',
    ]);
  });

  it('reads the JSON form of an ECS task definition', () => {
    const awsKey = randomText(BASE64, 40);
    const text = JSON.stringify(
      {
        environment: [
          { name: 'AWS_SECRET_ACCESS_KEY', value: awsKey },
          { name: 'DB_PASSWORD', value: 'Rm3#wQz8Lp!v' },
          { name: 'LOG_LEVEL', value: 'debug' },
        ],
      },
      null,
      2,
    );
    expect(matchesOf(text, 'secret.aws_secret_access_key')).toEqual([awsKey]);
    expect(matchesOf(text, 'secret.password_assignment')).toEqual(['Rm3#wQz8Lp!v']);
  });

  it('does not report references, placeholders or names that describe a secret', () => {
    const text = [
      '- name: JWT_SECRET',
      '  valueFrom:',
      '    secretKeyRef:',
      '      name: jwt',
      '      key: signing-key',
      '- name: API_TOKEN',
      '  value: ${API_TOKEN}',
      '- name: SESSION_SECRET',
      '  value: $(SESSION_SECRET_FROM_VAULT)',
      '- name: OAUTH_TOKEN_URL',
      '  value: https://auth.internal/oauth2/token',
      '{"name": "STRIPE_SECRET", "value": "<your-stripe-secret>"}',
      '{"name": "SECRET_NAME", "value": "prod-billing-credentials"}',
    ].join('\n');
    expect(secrets(text), summarise(secrets(text))).toEqual([]);
  });
});

describe('names that hold ids or hashes, not secrets', () => {
  it.each([
    ['an idempotency header', 'Idempotency-Key: 3f2c9a7e-41d8-4b0e-9c6a-7e5d1b2f8a90'],
    ['an idempotency key in JSON', '"idempotency_key": "inv_2026_10_31_004417"'],
    ['a deduplication key', 'dedup_key: shipment-2026-004417'],
    ['a deduplication id in camel case', 'deduplicationKey = "evt_2026-10-31T08:15:00Z"'],
    ['a sort key', 'sort_key = "updated_at#2026-10-31"'],
    ['a partition key', 'partition_key = "tenant-0815-2026-10"'],
    ['a range key', 'rangeKey: "order#2026-10-31#000917"'],
  ])('does not report %s', (_name, text) => {
    expect(secrets(text), summarise(secrets(text))).toEqual([]);
  });

  it("does not report Helm's checksum/secret annotation, which hashes the rendered Secret", () => {
    const hex = randomText('0123456789abcdef', 64, 5);
    const text = `  annotations:\n    checksum/secret: ${hex}\n    checksum/secrets: "${hex}"\n    checksum/config: ${hex}`;
    expect(secrets(text), summarise(secrets(text))).toEqual([]);
  });

  it('still reports a secret under a name that merely contains "sort" or sits under another path', () => {
    const value = randomText(ALPHANUMERIC, 24, 17);
    expect(matchesOf(`consortium_api_key = "${value}"`, 'secret.generic_secret')).toEqual([value]);
    expect(matchesOf(`vault/secret: ${value}`, 'secret.generic_secret')).toEqual([value]);
  });
});

describe("PHP define() constants (wp-config.php's salts)", () => {
  it('takes a generated salt whole, brackets and all', () => {
    const salts = ['u7}Kq(2#Zr|Lw8^Ty[Pm4~Xe)Vb6!Nc9*Hd3@Gs5%Jf1&Qa0-Rt+Yo=Wi:Ul;Op', 'Fz(3m#Qw|T8x[Lk^2vR}p9@Nd~Hs6!Yc*Bj4%Ga7&Ee1-Wu+Io=Zt:Kr;Vl,Sq'];
    const text = `define( 'AUTH_KEY',         '${salts[0]}' );\ndefine('SECURE_AUTH_KEY', '${salts[1]}');`;
    expect(matchesOf(text, 'secret.generic_secret')).toEqual(salts);
  });

  it('still does not report the placeholder wp-config-sample.php ships, nor code in another call', () => {
    expect(secrets("define( 'AUTH_KEY', 'put your unique phrase here' );")).toEqual([]);
    expect(secrets("config.set('api_key', 'Math.random().toString(36)')")).toEqual([]);
  });
});

describe('the rule of a password does not depend on its length', () => {
  it.each([
    ['password and a blank', 'password Xk29dLq7mRtAbCd', 'password Xk29dLq7mRtAbCdE'],
    ['SQL CREATE USER', "CREATE USER r WITH PASSWORD 'Xk29dLq7mRt';", "CREATE USER r WITH PASSWORD 'Xk29dLq7mRtAbCdEf';"],
    ['.netrc', 'machine api.example.com login bob password y_MyHq7Vlu30', 'machine api.example.com login bob password y_MyHq7Vlu30LKo8yQ'],
  ])('reports short and long values after %s as secret.password_assignment (regression: 16 characters made it generic_secret)', (_carrier, short, long) => {
    for (const text of [short, long]) {
      expect(
        findingsOf(text).map((finding) => finding.rule_id),
        text,
      ).toEqual(['secret.password_assignment']);
    }
  });

  it('still reports a token name and a blank as a generic secret', () => {
    expect(findingsOf('api_token Xk29dLq7mRtAbCdE9').map((finding) => finding.rule_id)).toEqual(['secret.generic_secret']);
  });
});
