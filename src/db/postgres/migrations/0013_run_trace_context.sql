-- A queued run keeps the W3C trace context (traceparent, tracestate) of the request that queued it,
-- so its execution, nodes and model calls continue that trace when a process claims it later.
-- Null for runs executed in their request and for runs queued before, or outside any trace.
ALTER TABLE "runs" ADD COLUMN "trace_context" json;
