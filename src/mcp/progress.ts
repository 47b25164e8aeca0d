/**
 * MCP progress notifications for a tool call that asked for them (`_meta.progressToken`): the
 * execution's events, turned into `notifications/progress`. A workflow reports each finished
 * node (progress = nodes finished, total = the run's nodes, message = the node id); a single
 * model call reports the characters produced so far, every PROGRESS_CHARACTERS_STEP of them, so a
 * long answer sends a handful of notifications rather than one per token.
 */
import type { ProgressNotification } from '@modelcontextprotocol/server';
import type { ExecutionEvents } from '../core/execution/executions.js';

/** Characters of an answer between two progress notifications (the first delta always sends one). */
export const PROGRESS_CHARACTERS_STEP = 200;

export type ProgressToken = ProgressNotification['params']['progressToken'];

export type SendProgress = (params: ProgressNotification['params']) => void;

export function progressEvents(progressToken: ProgressToken, send: SendProgress): ExecutionEvents {
  let produced = 0;
  let reportedAt = -1;
  return {
    onDelta(text) {
      produced += text.length;
      if (reportedAt >= 0 && produced - reportedAt < PROGRESS_CHARACTERS_STEP) return;
      reportedAt = produced;
      send({ progressToken, progress: produced, message: `${produced} characters produced` });
    },
    onNode(node, progress) {
      send({ progressToken, progress: progress.finished, total: progress.total, message: node.node_id });
    },
  };
}

/** The progress token of a JSON-RPC `tools/call` message, if it carries one (HTTP answers it as a stream then). */
export function progressTokenOf(message: unknown): ProgressToken | undefined {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return undefined;
  const { method, params } = message as { method?: unknown; params?: unknown };
  if (method !== 'tools/call' || typeof params !== 'object' || params === null) return undefined;
  const meta = (params as { _meta?: unknown })._meta;
  if (typeof meta !== 'object' || meta === null) return undefined;
  const token = (meta as { progressToken?: unknown }).progressToken;
  return typeof token === 'string' || typeof token === 'number' ? token : undefined;
}
