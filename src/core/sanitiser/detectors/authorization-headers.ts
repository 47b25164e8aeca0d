/**
 * Authorization header credentials: the token after the `Bearer` scheme, and the base64
 * `user:password` after `Basic` when it decodes to printable text with a real password.
 */
import { defineDetector, type DetectorContext } from '../detector.js';
import { characterClassCount, isPlaceholderValue, shannonEntropy } from '../validators.js';
import { isTemplateOrVariable } from './credential-values.js';
import { codeAt, isAsciiAlphanumeric } from './text-boundaries.js';

const BEARER = /Bearer\s+([A-Za-z0-9\-._~+/]{16,}=*)/iy;
const BASIC = /Basic\s+([A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])/iy;

function detectAuthorizationHeaders(context: DetectorContext<'secret.bearer_token'>): void {
  const { text, scan } = context;
  for (const position of context.positions('bearer')) {
    if (isAsciiAlphanumeric(codeAt(text, position - 1))) continue;
    BEARER.lastIndex = position;
    const match = BEARER.exec(text);
    const token = match?.[1];
    if (match === null || token === undefined) continue;
    if (isPlaceholderValue(token) || isTemplateOrVariable(token) || characterClassCount(token) < 2 || shannonEntropy(token) < 3.0) continue;
    const start = position + match[0].length - token.length;
    scan.emit('secret.bearer_token', start, start + token.length);
  }
  for (const position of context.positions('basic')) {
    if (isAsciiAlphanumeric(codeAt(text, position - 1))) continue;
    BASIC.lastIndex = position;
    const match = BASIC.exec(text);
    const encoded = match?.[1];
    if (match === null || encoded === undefined || encoded.length % 4 !== 0) continue;
    const decoded = Buffer.from(encoded, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon <= 0 || !/^[\x20-\x7e]+$/.test(decoded)) continue;
    const password = decoded.slice(colon + 1);
    if (password.length < 4 || isPlaceholderValue(password) || isTemplateOrVariable(password)) continue;
    const start = position + match[0].length - encoded.length;
    scan.emit('secret.bearer_token', start, start + encoded.length);
  }
}

export const authorizationHeaderDetector = defineDetector({
  name: 'authorization-headers',
  ruleIds: ['secret.bearer_token'],
  keywords: ['bearer', 'basic'],
  detect: detectAuthorizationHeaders,
});
