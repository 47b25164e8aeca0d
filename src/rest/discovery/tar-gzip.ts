/**
 * Deterministic .tar.gz archives for the Agent Skills index, whose digests must equal the bytes
 * served on every machine. zlib's compressed output can differ between builds and CPUs (the
 * SIMD hash paths choose different matches), so the gzip stream uses stored (uncompressed)
 * deflate blocks written here: the same files always give the same bytes. Skills are a few
 * kilobytes, so compression would save little.
 */
import { gunzipSync } from 'node:zlib';

export interface ArchiveEntry {
  /** Path inside the archive, forward slashes, relative (the archive root is the skill folder). */
  path: string;
  bytes: Uint8Array;
  /** Unix permission bits; 0o755 for scripts, 0o644 otherwise. */
  mode: number;
}

const BLOCK = 512;
/** Every entry carries this modification time: the API version date, 2026-05-05T00:00:00Z. */
export const ARCHIVE_MTIME_SECONDS = Date.UTC(2026, 4, 5) / 1000;
/** Deflate stored blocks hold at most 65,535 bytes each. */
const MAX_STORED_BLOCK = 0xffff;

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n += 1) {
    let c = n;
    for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

export function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = (CRC_TABLE[(crc ^ byte) & 0xff] ?? 0) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function writeString(header: Uint8Array, offset: number, length: number, value: string): void {
  const bytes = new TextEncoder().encode(value);
  if (bytes.length > length) throw new Error(`Archive field too long: ${value}`);
  header.set(bytes, offset);
}

function writeOctal(header: Uint8Array, offset: number, length: number, value: number): void {
  writeString(header, offset, length, `${value.toString(8).padStart(length - 1, '0')}\0`);
}

function tarHeader(entry: ArchiveEntry): Uint8Array {
  if (!/^[\x20-\x7e]+$/.test(entry.path) || entry.path.startsWith('/') || entry.path.split('/').includes('..')) {
    throw new Error(`Unsafe archive path: ${entry.path}`);
  }
  const header = new Uint8Array(BLOCK);
  // Paths up to 100 bytes fit the name field; longer ones split at a slash into prefix/name (ustar).
  let name = entry.path;
  let prefix = '';
  if (name.length > 100) {
    const cut = name.lastIndexOf('/', 155);
    if (cut <= 0 || name.length - cut - 1 > 100) throw new Error(`Archive path too long: ${entry.path}`);
    prefix = name.slice(0, cut);
    name = name.slice(cut + 1);
  }
  writeString(header, 0, 100, name);
  writeOctal(header, 100, 8, entry.mode);
  writeOctal(header, 108, 8, 0);
  writeOctal(header, 116, 8, 0);
  writeOctal(header, 124, 12, entry.bytes.length);
  writeOctal(header, 136, 12, ARCHIVE_MTIME_SECONDS);
  header.fill(0x20, 148, 156);
  writeString(header, 156, 1, '0');
  writeString(header, 257, 6, 'ustar\0');
  writeString(header, 263, 2, '00');
  writeString(header, 345, 155, prefix);
  const checksum = header.reduce((sum, byte) => sum + byte, 0);
  writeString(header, 148, 8, `${checksum.toString(8).padStart(6, '0')}\0 `);
  return header;
}

/** A ustar archive of the entries, in the order given (callers sort them). */
export function tarArchive(entries: readonly ArchiveEntry[]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const entry of entries) {
    parts.push(tarHeader(entry), entry.bytes);
    const padding = (BLOCK - (entry.bytes.length % BLOCK)) % BLOCK;
    if (padding > 0) parts.push(new Uint8Array(padding));
  }
  parts.push(new Uint8Array(BLOCK * 2));
  return Buffer.concat(parts);
}

/** gzip (RFC 1952) with stored deflate blocks (RFC 1951 §3.2.4): byte-for-byte reproducible. */
export function gzipStored(data: Uint8Array): Uint8Array {
  // ID1 ID2, CM=deflate, no flags, MTIME=0, XFL=0, OS=255 (unknown) so no field depends on the machine.
  const header = Uint8Array.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xff]);
  const blocks: Uint8Array[] = [];
  let offset = 0;
  do {
    const length = Math.min(MAX_STORED_BLOCK, data.length - offset);
    const final = offset + length >= data.length;
    const block = new Uint8Array(5 + length);
    block[0] = final ? 0x01 : 0x00;
    block[1] = length & 0xff;
    block[2] = length >>> 8;
    block[3] = ~length & 0xff;
    block[4] = (~length >>> 8) & 0xff;
    block.set(data.subarray(offset, offset + length), 5);
    blocks.push(block);
    offset += length;
  } while (offset < data.length);
  const trailer = new Uint8Array(8);
  const view = new DataView(trailer.buffer);
  view.setUint32(0, crc32(data), true);
  view.setUint32(4, data.length >>> 0, true);
  return Buffer.concat([header, ...blocks, trailer]);
}

export function tarGzip(entries: readonly ArchiveEntry[]): Uint8Array {
  return gzipStored(tarArchive(entries));
}

/** Reads a .tar.gz back (any gzip, regular files only): for tests and the staleness check. */
export function readTarGzip(archive: Uint8Array): ArchiveEntry[] {
  const tar = gunzipSync(archive);
  const entries: ArchiveEntry[] = [];
  const text = (start: number, length: number) =>
    tar
      .subarray(start, start + length)
      .toString('utf8')
      .replace(/\0.*$/s, '');
  for (let offset = 0; offset + BLOCK <= tar.length; ) {
    const name = text(offset, 100);
    if (name === '') break;
    const size = Number.parseInt(text(offset + 124, 12).trim(), 8);
    const mode = Number.parseInt(text(offset + 100, 8).trim(), 8);
    const prefix = text(offset + 345, 155);
    const type = text(offset + 156, 1);
    const start = offset + BLOCK;
    if (type === '0' || type === '')
      entries.push({ path: prefix ? `${prefix}/${name}` : name, mode, bytes: new Uint8Array(tar.subarray(start, start + size)) });
    offset = start + Math.ceil(size / BLOCK) * BLOCK;
  }
  return entries;
}
