/**
 * The yaml package, loaded on first use (synchronously, from its CommonJS build) instead of at
 * start-up: config files, bundles, SKILL.md front matter and openapi.yaml need it, but a server
 * started without a config file answers its first requests without it, and starts sooner.
 */
import { createRequire } from 'node:module';
import type * as YamlModule from 'yaml';

let loaded: typeof YamlModule | undefined;

export function yaml(): typeof YamlModule {
  loaded ??= createRequire(import.meta.url)('yaml') as typeof YamlModule;
  return loaded;
}

/**
 * A YAML parse error in one sentence, where first: `Line 3, column 1: all mapping items must
 * start at the same column`. The package's message ends with ` at line 3, column 1:` and a
 * drawing of the line, which cut at its first line reads as unfinished.
 */
export function describeYamlError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const [first = ''] = err.message.split('\n');
  const what = first.replace(/ at line \d+, column \d+:?$/, '');
  const sentence = what.charAt(0).toLowerCase() + what.slice(1);
  const position = (err as { linePos?: Array<{ line: number; col: number }> }).linePos?.[0];
  return position === undefined ? sentence : `Line ${position.line}, column ${position.col}: ${sentence}`;
}

export interface ParseYamlOptions {
  /**
   * How many times a document may use each anchored part: where it is anchored (`&name`) and
   * every alias (`*name`) of it, an alias inside an anchored part counting once for each use of
   * that part (the "billion laughs" bound).
   */
  maxAliasCount?: number;
}

/** A document that uses an anchor more often than `ParseYamlOptions.maxAliasCount` allows. */
export class YamlAliasLimitError extends Error {
  constructor(readonly limit: number) {
    super(`an anchored part (&name) is used more than ${limit} times, counting where it is anchored and each alias (*name) of it`);
    this.name = 'YamlAliasLimitError';
  }
}

/**
 * The package's own warnings (a key that is a collection, say) go to process.emitWarning, which
 * prints them on stderr in the middle of a command's output; what matters in them reaches the
 * caller anyway, as the value that comes back or as an error.
 */
const QUIET = { logLevel: 'error' } as const;

/**
 * Parses YAML text into plain values, refusing duplicate keys in linear time. The package's own
 * duplicate check compares each key with every earlier key of its map, which made a bundle of
 * 40,000 keys take tens of seconds; here one set per map does it. Throws the package's errors
 * (with line and column) and, for a duplicate, names the key and its line.
 */
export function parseYaml(text: string, options: ParseYamlOptions = {}): unknown {
  const { parseDocument, visit, isScalar, isMap } = yaml();
  const document = parseDocument(text, { uniqueKeys: false, ...QUIET });
  const [error] = document.errors;
  if (error) throw error;
  visit(document, {
    Map(_key, map) {
      if (!isMap(map)) return;
      const seen = new Set<string>();
      for (const pair of map.items) {
        const key = isScalar(pair.key) ? `scalar:${String(pair.key.value)}` : `node:${JSON.stringify(pair.key)}`;
        if (seen.has(key)) {
          const name = isScalar(pair.key) ? String(pair.key.value) : JSON.stringify(pair.key);
          const line = isScalar(pair.key) && pair.key.range ? ` at line ${lineOf(text, pair.key.range[0])}` : '';
          throw new Error(`Map keys must be unique: "${name}" appears twice${line}`);
        }
        seen.add(key);
      }
    },
  });
  const maxAliasCount = options.maxAliasCount ?? 100;
  try {
    return document.toJS({ maxAliasCount });
  } catch (err) {
    // The package says only "Excessive alias count indicates a resource exhaustion attack".
    if (err instanceof ReferenceError && /excessive alias count/i.test(err.message)) throw new YamlAliasLimitError(maxAliasCount);
    throw err;
  }
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let index = 0; index < offset && index < text.length; index += 1) if (text.charCodeAt(index) === 0x0a) line += 1;
  return line;
}

/** Strings longer than this, or holding a line break, cannot read as a date, number or boolean. */
const MAX_AMBIGUOUS_LENGTH = 64;

/**
 * Characters YAML 1.2 does not allow unescaped (DEL and the C1 controls but NEL). The package
 * double-quotes a string holding one but writes the character itself, which strict parsers
 * (PyYAML, libyaml) refuse (regression: a bundle export PyYAML could not read); inside double
 * quotes `\xHH` is the escape they read.
 */
const NON_PRINTABLE = /[\u007f-\u0084\u0086-\u009f]/g;

/**
 * YAML that every parser reads back as `value`. The package writes YAML 1.2, where
 * `2026-05-05` is a string, but YAML 1.1 parsers (PyYAML, SnakeYAML, Ruby's Psych, most OpenAPI
 * tools) read it as a date, `yes` as a boolean and `1:30` as a number (regression: the
 * OpenAPI document's `info.version` and example timestamps turned into dates). Each plain string
 * that a 1.1 or a 1.2 parser would read as something else is double-quoted; other strings stay plain.
 */
export function stringifyYamlForAnyParser(value: unknown, options: { lineWidth?: number } = {}): string {
  const { Document, visit, isScalar, parse, Scalar } = yaml();
  const document = new Document(value, { aliasDuplicateObjects: false });
  const readsBack = (text: string, version: '1.1' | '1.2') => {
    try {
      return parse(text, { version, ...QUIET }) === text;
    } catch {
      return false;
    }
  };
  visit(document, {
    Scalar(_key, node) {
      if (!isScalar(node) || typeof node.value !== 'string') return;
      const text = node.value;
      if (text.length > MAX_AMBIGUOUS_LENGTH || /[\n\r]/.test(text)) return;
      if (!readsBack(text, '1.1') || !readsBack(text, '1.2')) node.type = Scalar.QUOTE_DOUBLE;
    },
  });
  return document
    .toString({ lineWidth: options.lineWidth ?? 0 })
    .replace(NON_PRINTABLE, (character) => `\\x${character.charCodeAt(0).toString(16).toUpperCase()}`);
}
