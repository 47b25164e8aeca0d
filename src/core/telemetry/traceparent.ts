/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/): `traceparent` (version 00, a 32-hex
 * trace id, a 16-hex parent span id and the flags) and `tracestate` (the vendors' list, which a
 * participant must pass on). Parsed by hand because the headers are fixed in shape and the SDK's
 * propagator would bring the SDK into core. The API's own tracestate parser is not used
 * either: it keeps the valid members of a malformed list, and drops any list longer than 512
 * characters, which the specification asks participants to pass on.
 */
import { type SpanContext, TraceFlags, type TraceState, isSpanContextValid } from '@opentelemetry/api';

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/** The caller's span context, or undefined for a header that is malformed, all zeros or of version ff. */
export function parseTraceparent(header: string): SpanContext | undefined {
  const match = TRACEPARENT.exec(header.trim());
  if (match === null) return undefined;
  const [, version, traceId, spanId, flags, rest] = match;
  // Version 00 has exactly four fields; a later version may append more, ff is forbidden.
  if (version === undefined || traceId === undefined || spanId === undefined || flags === undefined) return undefined;
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  const context: SpanContext = { traceId, spanId, traceFlags: Number.parseInt(flags, 16) & TraceFlags.SAMPLED, isRemote: true };
  return isSpanContextValid(context) ? context : undefined;
}

export function formatTraceparent(context: SpanContext): string | undefined {
  if (!isSpanContextValid(context)) return undefined;
  return `00-${context.traceId}-${context.spanId}-${(context.traceFlags & TraceFlags.SAMPLED).toString(16).padStart(2, '0')}`;
}

/**
 * One list member of `tracestate` (W3C Trace Context, 3.3.1.3): a key, simple (`vendor`) or
 * multi-tenant (`tenant@vendor`), then `=` and a value of 1 to 256 printable characters but `,`
 * and `=`, which does not end in a space.
 */
const TRACESTATE_MEMBER =
  /^(?:[a-z][a-z0-9_\-*/]{0,255}|[a-z0-9][a-z0-9_\-*/]{0,240}@[a-z][a-z0-9_\-*/]{0,13})=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;

/** A tracestate holds at most this many list members (W3C Trace Context, 3.3.1.1). */
const MAX_TRACESTATE_MEMBERS = 32;

/**
 * The vendors' list as it came, in its order: Porch adds and changes no member of its own, it
 * passes the list on (the specification's MUST). Immutable, as the API's interface expects.
 */
class ReceivedTraceState implements TraceState {
  constructor(private readonly members: ReadonlyArray<readonly [string, string]>) {}

  get(key: string): string | undefined {
    return this.members.find(([name]) => name === key)?.[1];
  }

  /** A changed or added member goes first, as the specification asks of a participant that writes one. */
  set(key: string, value: string): TraceState {
    return new ReceivedTraceState([[key, value], ...this.members.filter(([name]) => name !== key)]);
  }

  unset(key: string): TraceState {
    return new ReceivedTraceState(this.members.filter(([name]) => name !== key));
  }

  serialize(): string {
    return this.members.map(([key, value]) => `${key}=${value}`).join(',');
  }
}

/**
 * The caller's `tracestate`, or undefined when it is absent, empty or malformed: more than 32
 * list members, a member that breaks the key or value grammar, or a key given twice. The
 * specification lets a participant discard a header it cannot parse, and a partly kept one would
 * hand the next participant a list no vendor wrote. Empty members and the optional whitespace
 * around commas are allowed, and dropped.
 */
export function parseTracestate(header: string): TraceState | undefined {
  const members: Array<readonly [string, string]> = [];
  for (const part of header.split(',')) {
    const member = part.trim();
    if (member === '') continue;
    if (!TRACESTATE_MEMBER.test(member) || members.length === MAX_TRACESTATE_MEMBERS) return undefined;
    const separator = member.indexOf('=');
    const key = member.slice(0, separator);
    if (members.some(([name]) => name === key)) return undefined;
    members.push([key, member.slice(separator + 1)]);
  }
  return members.length === 0 ? undefined : new ReceivedTraceState(members);
}

/** The tracestate header of `context`; undefined when it has no list members. */
export function formatTracestate(context: SpanContext): string | undefined {
  const serialized = context.traceState?.serialize();
  return serialized === undefined || serialized === '' ? undefined : serialized;
}
