/**
 * Writes a whole list as it is read: the success envelope `{"success":true,"data":{"items":[...],
 * "count":N}}`, byte for byte what `res.json` would send for the same list, but built a page at a
 * time. `count` comes after `items` in the envelope, so it is known by the time it is written.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ServerResponse } from 'node:http';
import { JSON_CONTENT_TYPE, sendBody } from './envelope.js';

const HEAD = '{"success":true,"data":{"items":[';

/**
 * A list up to this size is sent as one body with a Content-Length, as every list was before
 * streaming; beyond it the body is chunked. Most lists are far below it, and holding this much
 * per request is what bounds the memory of a long one.
 */
export const BUFFERED_LIST_BYTES = 64 * 1024;

/**
 * How much one list serialises before it lets other requests run. A page of the largest cards is
 * megabytes; twenty lists each serialising a whole page per turn kept /health waiting seconds
 * (bench/RESULTS-NOTES.md), so a turn is bounded by bytes, not rows.
 */
const TURN_BYTES = 64 * 1024;

/** Writes a chunk, and waits for the socket to drain when its buffer is full (or for it to close). */
async function write(res: ServerResponse, chunk: string): Promise<void> {
  if (res.write(chunk)) return;
  await new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * Sends the pages as one list. A failure before anything was sent is thrown (the caller answers
 * with the error envelope); once the body has started, the caller can only cut the connection,
 * so the client sees a truncated body rather than a well-formed list that is missing items.
 */
export async function sendListPages(res: ServerResponse, status: number, pages: AsyncIterable<readonly unknown[]>): Promise<void> {
  let count = 0;
  let buffered: string[] = [];
  let bufferedBytes = 0;
  let streaming = false;
  let bytesThisTurn = 0;
  /**
   * Sends (or, while the list is short, keeps) what was serialised, and lets other requests run
   * once a turn's worth is done: a list that fits in one turn (most do) answers without waiting
   * behind the event loop.
   */
  const flush = async (chunk: string) => {
    if (streaming) await write(res, chunk);
    else {
      buffered.push(chunk);
      bufferedBytes += chunk.length;
      if (bufferedBytes > BUFFERED_LIST_BYTES) {
        streaming = true;
        res.statusCode = status;
        res.setHeader('Content-Type', JSON_CONTENT_TYPE);
        await write(res, HEAD + buffered.join(''));
        buffered = [];
      }
    }
    bytesThisTurn += chunk.length;
    if (bytesThisTurn >= TURN_BYTES) {
      bytesThisTurn = 0;
      await nextTurn();
    }
  };
  for await (const page of pages) {
    // Leaving the loop ends the page reader too (its `return`), so a client that went away stops the reads.
    if (res.destroyed) return;
    let chunk = '';
    for (const item of page) {
      chunk += count === 0 ? JSON.stringify(item) : `,${JSON.stringify(item)}`;
      count += 1;
      if (chunk.length >= TURN_BYTES) {
        await flush(chunk);
        chunk = '';
        if (res.destroyed) return;
      }
    }
    if (chunk.length > 0) await flush(chunk);
  }
  const tail = `],"count":${count}}}`;
  if (streaming) res.end(tail);
  else sendBody(res, status, JSON_CONTENT_TYPE, HEAD + buffered.join('') + tail);
}
