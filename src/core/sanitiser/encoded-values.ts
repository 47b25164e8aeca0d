/**
 * Values a text holds only in encoded form: the `data:` entries of a Kubernetes Secret are
 * base64, so `password: SzhzLVBy...` hides its password from every detector. This finds those
 * entries and decodes them; create-sanitiser.ts scans `key: decoded` and maps each finding back
 * onto the encoded characters that carry it.
 */

export interface EncodedValue {
  /** The entry's key (`password`, `DATABASE_URL`): scanned with the value, it is the value's context. */
  readonly key: string;
  /** Where the base64 value sits in the text. */
  readonly start: number;
  readonly end: number;
  readonly decoded: string;
}

/** Most entries decoded per scan: a manifest bundle of hundreds of Secrets stays bounded. */
const MAX_ENCODED_VALUES = 1_000;
/** Longest value decoded (certificates and keys fit; anything longer is not scanned twice). */
const MAX_ENCODED_LENGTH = 16_384;

const SECRET_KIND = /^kind:[ \t]*["']?Secret["']?[ \t]*$/m;
const DATA_LINE = /^([ \t]*)data:[ \t]*$/gm;
const ENTRY = /([ \t]+)([\w.-]{1,253}):[ \t]*["']?([A-Za-z0-9+/]+={0,2})["']?[ \t]*(?=\r?\n|$)/y;

/** No control characters but tab and line breaks, and no bytes that were not UTF-8 (U+FFFD). */
function isPrintable(decoded: string): boolean {
  for (let index = 0; index < decoded.length; index += 1) {
    const code = decoded.charCodeAt(index);
    if ((code < 32 && code !== 9 && code !== 10 && code !== 13) || code === 0xfffd) return false;
  }
  return true;
}

/** The base64 `data:` values of the Kubernetes Secrets in `text` that decode to printable text. */
export function kubernetesSecretValues(text: string): EncodedValue[] {
  if (!text.includes('Secret') || !SECRET_KIND.test(text)) return [];
  const values: EncodedValue[] = [];
  DATA_LINE.lastIndex = 0;
  for (let data = DATA_LINE.exec(text); data !== null && values.length < MAX_ENCODED_VALUES; data = DATA_LINE.exec(text)) {
    const indent = (data[1] ?? '').length;
    let lineStart = data.index + data[0].length + 1;
    while (lineStart < text.length && values.length < MAX_ENCODED_VALUES) {
      ENTRY.lastIndex = lineStart;
      const entry = ENTRY.exec(text);
      // The block ends at the first line that is not a deeper-indented `key: base64`.
      if (entry === null || (entry[1] ?? '').length <= indent) break;
      const encoded = entry[3] ?? '';
      const start = entry.index + entry[0].lastIndexOf(encoded);
      if (encoded.length % 4 === 0 && encoded.length <= MAX_ENCODED_LENGTH) {
        const decoded = Buffer.from(encoded, 'base64').toString('utf8');
        // Binary content (a keystore) holds nothing the text rules can read.
        if (decoded.length > 0 && isPrintable(decoded)) {
          values.push({ key: entry[2] ?? '', start, end: start + encoded.length, decoded });
        }
      }
      lineStart = entry.index + entry[0].length + 1;
    }
  }
  return values;
}

/**
 * The encoded characters that carry decoded characters [start, end) of an ASCII value: every 3
 * decoded bytes are 4 base64 characters. Non-ASCII text maps to the whole value.
 */
export function encodedSpan(value: EncodedValue, start: number, end: number): { start: number; end: number } {
  if (/[^\x20-\x7e\t\n\r]/.test(value.decoded)) return { start: value.start, end: value.end };
  return {
    start: value.start + Math.floor(start / 3) * 4,
    end: Math.min(value.end, value.start + Math.ceil(end / 3) * 4),
  };
}
