/**
 * Deterministic benchmark inputs for bench/sanitiser-bench.ts: clean prose, source code with
 * secrets, and mixed text (prose, support tickets with personal data, logs, code). A seeded
 * generator makes every run scan the same bytes; nothing here is tuned to either engine.
 */

/** mulberry32: small, fast, deterministic PRNG. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

type Random = () => number;

function pick<T>(random: Random, items: readonly T[]): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error('pick from an empty list');
  return item;
}

function integer(random: Random, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

function randomString(random: Random, alphabet: string, length: number): string {
  let result = '';
  for (let index = 0; index < length; index += 1) result += alphabet[Math.floor(random() * alphabet.length)];
  return result;
}

const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const DIGITS = '0123456789';
const ALPHANUMERIC = LOWER + UPPER + DIGITS;
const HEX = '0123456789abcdef';
const BASE64 = `${ALPHANUMERIC}+/`;

/**
 * The text as a request body delivers it: a flat string. Joining and slicing leaves V8 a rope or
 * a slice of a larger string, which every engine reads more slowly than a real request body.
 */
function asReceived(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}

// ---------------------------------------------------------------------------------------------
// Prose

const NOUNS =
  'system team project report meeting customer product market policy process result question answer problem idea change plan budget quarter week morning evening city country river mountain garden window door table chapter story history language science music picture letter message decision strategy research analysis feature release design review document library teacher student doctor family friend neighbour company office building street village winter summer spring autumn journey weather season harvest engine network service platform interface method pattern model signal balance culture economy energy climate ocean forest island bridge station museum theatre festival kitchen recipe bread coffee'.split(
    ' ',
  );
const VERBS =
  'improves describes explains changes follows supports reduces increases requires includes suggests reveals creates builds shapes guides measures delivers protects connects replaces reflects combines avoids extends limits shows finds keeps leaves brings holds turns moves carries opens covers'.split(
    ' ',
  );
const ADJECTIVES =
  'new old large small early late quiet busy simple complex careful rapid steady bright dark warm cold green local global public private final recent common rare clear useful important modern ancient gentle strong weak open narrow broad familiar different similar'.split(
    ' ',
  );
const ADVERBS = 'quickly slowly carefully often rarely usually clearly simply gradually suddenly quietly openly mostly nearly already still'.split(' ');
const CONNECTORS = ['However,', 'Meanwhile,', 'In practice,', 'As a result,', 'For example,', 'In the end,', 'At first,', 'Later,', 'Even so,', 'In short,'];
const NAMES = ['Alice', 'Bruno', 'Chen', 'Dara', 'Elena', 'Farid', 'Greta', 'Hiro', 'Ines', 'Jonas', 'Kwame', 'Lena', 'Mateo', 'Nadia', 'Oskar', 'Priya'];

function sentence(random: Random): string {
  const subject = `the ${pick(random, ADJECTIVES)} ${pick(random, NOUNS)}`;
  const object = `${pick(random, ['a', 'the', 'every', 'each', 'another'])} ${pick(random, NOUNS)}`;
  const templates = [
    () => `${subject} ${pick(random, VERBS)} ${object}`,
    () => `${subject} ${pick(random, ADVERBS)} ${pick(random, VERBS)} ${object} in the ${pick(random, NOUNS)}`,
    () => `${pick(random, NAMES)} said that ${subject} ${pick(random, VERBS)} ${object}`,
    () => `${subject} ${pick(random, VERBS)} ${object}, and ${pick(random, NAMES)} ${pick(random, VERBS)} the ${pick(random, NOUNS)}`,
    () => `in ${integer(random, 1950, 2024)} ${subject} ${pick(random, VERBS)} about ${integer(random, 2, 95)} percent of ${object}`,
    () =>
      `${subject} (${pick(random, ['mostly', 'partly', 'rarely'])} ${pick(random, ADJECTIVES)}) ${pick(random, VERBS)} ${integer(random, 2, 12)} of ${integer(random, 13, 40)} ${pick(random, NOUNS)}s`,
    () => `"${pick(random, ADJECTIVES)} ${pick(random, NOUNS)}s ${pick(random, VERBS).replace(/s$/, '')} ${object}," ${pick(random, NAMES)} wrote`,
  ];
  const body = pick(random, templates)();
  const prefix = random() < 0.15 ? `${pick(random, CONNECTORS)} ` : '';
  const text = prefix + body;
  return text.charAt(0).toUpperCase() + text.slice(1) + pick(random, ['.', '.', '.', '?', '!', ';']).replace(';', '.');
}

function paragraph(random: Random): string {
  const sentences: string[] = [];
  const count = integer(random, 3, 8);
  for (let index = 0; index < count; index += 1) sentences.push(sentence(random));
  return sentences.join(' ');
}

export function cleanProse(size: number, seed = 1): string {
  const random = seededRandom(seed);
  const parts: string[] = [];
  let length = 0;
  while (length < size) {
    const part = random() < 0.08 ? `## ${pick(random, ADJECTIVES)} ${pick(random, NOUNS)}s` : paragraph(random);
    parts.push(part);
    length += part.length + 2;
  }
  return asReceived(parts.join('\n\n').slice(0, size));
}

// ---------------------------------------------------------------------------------------------
// Secrets (formats secretlint's recommended preset knows, plus a few it does not)

function secret(random: Random): string {
  const generators: (() => string)[] = [
    () => `AWS_ACCESS_KEY_ID=AKIA${randomString(random, `${UPPER}234567`, 16)}\nAWS_SECRET_ACCESS_KEY=${randomString(random, BASE64, 40)}`,
    () => `const githubToken = "ghp_${randomString(random, ALPHANUMERIC, 36)}";`,
    () => `SLACK_BOT_TOKEN=xoxb-${randomString(random, DIGITS, 11)}-${randomString(random, DIGITS, 13)}-${randomString(random, ALPHANUMERIC, 24)}`,
    () =>
      `webhook: https://hooks.slack.com/services/T${randomString(random, UPPER + DIGITS, 8)}/B${randomString(random, UPPER + DIGITS, 10)}/${randomString(random, ALPHANUMERIC, 24)}`,
    () => `OPENAI_API_KEY=sk-proj-${randomString(random, ALPHANUMERIC, 20)}T3BlbkFJ${randomString(random, ALPHANUMERIC, 20)}`,
    () => `anthropic_key = "sk-ant-api03-${randomString(random, `${ALPHANUMERIC}-_`, 93)}AA"`,
    () => `SENDGRID_API_KEY="SG.${randomString(random, ALPHANUMERIC, 22)}.${randomString(random, ALPHANUMERIC, 43)}"`,
    () => `shopify_token: shpat_${randomString(random, HEX, 32)}`,
    () => `//registry.npmjs.org/:_authToken=npm_${randomString(random, ALPHANUMERIC, 36)}`,
    () => `DATABASE_URL=postgres://app_user:${randomString(random, ALPHANUMERIC, 16)}@db.internal.example.net:5432/orders`,
    () => `MONGO_URI="mongodb+srv://svc:${randomString(random, ALPHANUMERIC, 14)}@cluster0.ab1cd.mongodb.net/prod"`,
    () => `curl https://deploy:${randomString(random, ALPHANUMERIC, 18)}@ci.example.org/hooks/run`,
    () => `-----BEGIN RSA PRIVATE KEY-----\n${Array.from({ length: 12 }, () => randomString(random, BASE64, 64)).join('\n')}\n-----END RSA PRIVATE KEY-----`,
    () => `LINEAR_API_KEY=lin_api_${randomString(random, ALPHANUMERIC, 40)}`,
    () => `stripe.api_key = "sk_live_${randomString(random, ALPHANUMERIC, 24)}"`,
    () => `db_password = "${randomString(random, `${ALPHANUMERIC}!#%`, 14)}"`,
  ];
  return pick(random, generators)();
}

// ---------------------------------------------------------------------------------------------
// Code

const IDENTIFIERS =
  'user order item cart session request response config options result value index count total price amount status message error handler client server cache queue worker record entry payload buffer stream token key name path route query filter limit offset page size timeout retries version'.split(
    ' ',
  );

function identifier(random: Random): string {
  const first = pick(random, IDENTIFIERS);
  const second = pick(random, IDENTIFIERS);
  return random() < 0.5 ? first : first + second.charAt(0).toUpperCase() + second.slice(1);
}

function codeLine(random: Random): string {
  const templates = [
    () => `import { ${identifier(random)} } from './${pick(random, IDENTIFIERS)}.js';`,
    () => `const ${identifier(random)} = ${integer(random, 0, 5000)};`,
    () => `  if (${identifier(random)}.length > ${integer(random, 1, 100)}) return ${identifier(random)};`,
    () => `  ${identifier(random)}.${pick(random, ['push', 'set', 'get', 'delete', 'add'])}(${identifier(random)}, ${identifier(random)});`,
    () =>
      `export function ${identifier(random)}(${identifier(random)}: string, ${identifier(random)}: number): ${pick(random, ['string', 'number', 'boolean', 'void'])} {`,
    () => `}`,
    () => `// ${sentence(random)}`,
    () => `    "${identifier(random)}": "${pick(random, ADJECTIVES)}-${pick(random, NOUNS)}",`,
    () => `  ${identifier(random)}: ${integer(random, 0, 100)}, // ${pick(random, ADVERBS)} ${pick(random, VERBS)}`,
    () => `  color: #${randomString(random, HEX, 6)};`,
    () =>
      `const requestId = '${randomString(random, HEX, 8)}-${randomString(random, HEX, 4)}-4${randomString(random, HEX, 3)}-a${randomString(random, HEX, 3)}-${randomString(random, HEX, 12)}';`,
    () => `"version": "${integer(random, 0, 9)}.${integer(random, 0, 30)}.${integer(random, 0, 99)}",`,
    () => `const apiUrl = 'https://api.example.com/v${integer(random, 1, 3)}/${pick(random, IDENTIFIERS)}s/${integer(random, 1, 99999)}';`,
    () => `commit ${randomString(random, HEX, 40)}`,
    () => `def ${identifier(random)}(self, ${identifier(random)}=None):`,
    () => `    return self.${identifier(random)}[${integer(random, 0, 9)}:${integer(random, 10, 99)}]`,
    () => `  - name: ${identifier(random)}\n    image: registry.example.com/${pick(random, IDENTIFIERS)}:${integer(random, 1, 9)}.${integer(random, 0, 20)}`,
    () => `const cacheKey = \`\${${identifier(random)}}:\${${identifier(random)}}\`;`,
    () => `  const password = form.get('password');`,
    () => `  logger.info({ ${identifier(random)}, elapsedMs: ${integer(random, 1, 900)} }, '${pick(random, VERBS)} ${pick(random, NOUNS)}');`,
  ];
  return pick(random, templates)();
}

function codeBlock(random: Random, secretRate: number): string {
  const lines: string[] = [];
  const count = integer(random, 8, 30);
  for (let index = 0; index < count; index += 1) {
    lines.push(random() < secretRate ? secret(random) : codeLine(random));
  }
  return lines.join('\n');
}

export function codeWithSecrets(size: number, seed = 2): string {
  const random = seededRandom(seed);
  const parts: string[] = [];
  let length = 0;
  while (length < size) {
    const block = codeBlock(random, 0.03);
    parts.push(block);
    length += block.length + 2;
  }
  return asReceived(parts.join('\n\n').slice(0, size));
}

// ---------------------------------------------------------------------------------------------
// Mixed: prose, support tickets with personal data, logs, code

function email(random: Random): string {
  return `${pick(random, NAMES).toLowerCase()}.${pick(random, NOUNS)}${integer(random, 1, 99)}@${pick(random, ['gmail.com', 'example.org', 'mail.co.uk', 'posteo.de', 'outlook.com'])}`;
}

function luhnComplete(prefix: string, length: number, random: Random): string {
  let digits = prefix + randomString(random, DIGITS, length - prefix.length - 1);
  let sum = 0;
  for (let index = 0; index < digits.length; index += 1) {
    let digit = Number(digits[digits.length - 1 - index]);
    if (index % 2 === 0) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  digits += String((10 - (sum % 10)) % 10);
  return digits;
}

function iban(random: Random): string {
  const bban = `${randomString(random, UPPER, 4)}${randomString(random, DIGITS, 14)}`;
  const rearranged = `${bban}GB00`.replace(/[A-Z]/g, (letter) => String(letter.charCodeAt(0) - 55));
  let remainder = 0;
  for (const digit of rearranged) remainder = (remainder * 10 + Number(digit)) % 97;
  const check = String(98 - remainder).padStart(2, '0');
  return `GB${check}${bban}`;
}

function ticket(random: Random): string {
  const name = pick(random, NAMES);
  const lines = [
    `Ticket #${integer(random, 10000, 99999)} from ${name} <${email(random)}>`,
    `${name} wrote: ${sentence(random)} ${sentence(random)}`,
    `Please call me back on ${pick(random, [`+44 7700 ${integer(random, 100000, 999999)}`, `(${integer(random, 201, 989)}) ${integer(random, 200, 999)}-${integer(random, 1000, 9999)}`, `+49 30 ${integer(random, 1000000, 9999999)}`])}.`,
  ];
  const extra = random();
  if (extra < 0.25)
    lines.push(
      `The card ending ${integer(random, 1000, 9999)} was charged twice; full number ${luhnComplete('4', 16, random).replace(/(\d{4})(?=\d)/g, '$1 ')}.`,
    );
  else if (extra < 0.45) lines.push(`Refund to IBAN ${iban(random)}, please.`);
  else if (extra < 0.6) lines.push(`My SSN is ${integer(random, 100, 665)}-${integer(random, 10, 99)}-${integer(random, 1000, 9999)} if you need it.`);
  lines.push(`Agent: ${sentence(random)}`);
  return lines.join('\n');
}

function logLines(random: Random): string {
  const lines: string[] = [];
  const count = integer(random, 5, 15);
  for (let index = 0; index < count; index += 1) {
    const ip = `${integer(random, 11, 223)}.${integer(random, 0, 255)}.${integer(random, 0, 255)}.${integer(random, 1, 254)}`;
    lines.push(
      `2024-0${integer(random, 1, 9)}-1${integer(random, 0, 9)}T1${integer(random, 0, 9)}:${integer(random, 10, 59)}:${integer(random, 10, 59)}Z ${pick(random, ['INFO', 'WARN', 'ERROR'])} ${pick(random, ['GET', 'POST', 'PUT'])} /api/${pick(random, IDENTIFIERS)}s/${integer(random, 1, 9999)} ${pick(random, [200, 201, 404, 500])} ${integer(random, 2, 900)}ms client=${ip}`,
    );
  }
  return lines.join('\n');
}

/** What a part of the mixed text is, for reporting the mix by bytes. */
export type MixedPartKind = 'prose' | 'support tickets' | 'log excerpts' | 'code blocks';

/**
 * The parts of the mixed text in order. Parts are drawn 45 % prose paragraphs, 20 % support
 * tickets, 15 % log excerpts and 20 % fenced code blocks; log excerpts and code blocks are
 * longer than paragraphs, so by bytes the mix differs (the benchmark reports it).
 */
export function mixedTextParts(size: number, seed = 3): { kind: MixedPartKind; text: string }[] {
  const random = seededRandom(seed);
  const parts: { kind: MixedPartKind; text: string }[] = [];
  let length = 0;
  while (length < size) {
    const roll = random();
    let part: { kind: MixedPartKind; text: string };
    if (roll < 0.45) part = { kind: 'prose', text: paragraph(random) };
    else if (roll < 0.65) part = { kind: 'support tickets', text: ticket(random) };
    else if (roll < 0.8) part = { kind: 'log excerpts', text: logLines(random) };
    else part = { kind: 'code blocks', text: `\`\`\`\n${codeBlock(random, 0.05)}\n\`\`\`` };
    parts.push(part);
    length += part.text.length + 2;
  }
  return parts;
}

export function mixedText(size: number, seed = 3): string {
  return asReceived(
    mixedTextParts(size, seed)
      .map((part) => part.text)
      .join('\n\n')
      .slice(0, size),
  );
}
