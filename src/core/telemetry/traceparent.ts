/**
 * W3C Trace Context `traceparent` (https://www.w3.org/TR/trace-context/): version 00, a 32-hex
 * trace id, a 16-hex parent span id and the flags. Parsed by hand because the header is fixed
 * in shape and the SDK's propagator would bring the SDK into core.
 */
import { type SpanContext, TraceFlags, isSpanContextValid } from '@opentelemetry/api';

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
