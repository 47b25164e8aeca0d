/**
 * The console's static files: its stylesheet and scripts, and the libraries it runs in the
 * browser, all served by Porch (no CDN: a self-hosted network may have no internet). Each URL
 * carries the file's content hash, so a file is cached for good and a new release is a new URL.
 * Every file is compressed once (brotli and gzip, on the thread pool) and kept in memory.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { extname } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlibConstants, gzip } from 'node:zlib';
import type { RequestHandler } from 'express';
import { CONSOLE_PATHS } from '../operations/site-paths.js';

const ASSET_FOLDER = new URL('../../src/console/assets/', import.meta.url);
const resolveModule = createRequire(import.meta.url).resolve;

/** Where each served file comes from: the console's own folder, or a library's published build. */
const SOURCES = {
  'console.css': new URL('console.css', ASSET_FOLDER).pathname,
  'console.js': new URL('console.js', ASSET_FOLDER).pathname,
  'htmx.js': resolveModule('htmx.org/dist/htmx.min.js'),
  'usage-chart.js': new URL('usage-chart.js', ASSET_FOLDER).pathname,
  // uPlot (about 50 KB, no dependencies) draws the overview's usage chart.
  'uplot.js': resolveModule('uplot/dist/uPlot.iife.min.js'),
  'uplot.css': resolveModule('uplot/dist/uPlot.min.css'),
} as const;

export type AssetName = keyof typeof SOURCES;

const CONTENT_TYPES: Record<string, string> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
};

const compressBrotli = promisify(brotliCompress);
const compressGzip = promisify(gzip);

interface Asset {
  url: string;
  contentType: string;
  identity: Buffer;
  /** Filled in on first request; until then the file is sent as is. */
  brotli?: Buffer;
  gzip?: Buffer;
}

function loadAssets(): { assets: Map<string, Asset>; urls: Map<AssetName, string> } {
  const assets = new Map<string, Asset>();
  const urls = new Map<AssetName, string>();
  for (const [name, path] of Object.entries(SOURCES) as Array<[AssetName, string]>) {
    const identity = readFileSync(path);
    const hash = createHash('sha256').update(identity).digest('hex').slice(0, 12);
    const extension = extname(name);
    const url = `${CONSOLE_PATHS.assets}/${name.slice(0, -extension.length)}.${hash}${extension}`;
    assets.set(url, { url, contentType: CONTENT_TYPES[extension] ?? 'application/octet-stream', identity });
    urls.set(name, url);
  }
  return { assets, urls };
}

export interface ConsoleAssets {
  /** The hashed URL of an asset, for the pages' `<link>` and `<script>` tags. */
  url(name: AssetName): string;
  handler: RequestHandler;
}

export function createConsoleAssets(): ConsoleAssets {
  const { assets, urls } = loadAssets();
  // Compressed in the background as the door starts: a file requested before it is ready goes uncompressed.
  for (const asset of assets.values()) {
    void compressBrotli(asset.identity, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 11 } }).then((bytes) => {
      asset.brotli = bytes;
    });
    void compressGzip(asset.identity, { level: 9 }).then((bytes) => {
      asset.gzip = bytes;
    });
  }
  return {
    url: (name) => urls.get(name) ?? `${CONSOLE_PATHS.assets}/${name}`,
    handler(req, res, next) {
      const asset = assets.get(req.originalUrl.split('?', 1)[0] ?? '');
      if (!asset || (req.method !== 'GET' && req.method !== 'HEAD')) return next();
      const accepted = String(req.headers['accept-encoding'] ?? '');
      const [encoding, body] =
        asset.brotli && /\bbr\b/.test(accepted)
          ? (['br', asset.brotli] as const)
          : asset.gzip && /\bgzip\b/.test(accepted)
            ? (['gzip', asset.gzip] as const)
            : ([null, asset.identity] as const);
      res.setHeader('Content-Type', asset.contentType);
      res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
      res.setHeader('Vary', 'Accept-Encoding');
      if (encoding) res.setHeader('Content-Encoding', encoding);
      res.setHeader('Content-Length', String(body.length));
      res.status(200).end(req.method === 'HEAD' ? undefined : body);
    },
  };
}
