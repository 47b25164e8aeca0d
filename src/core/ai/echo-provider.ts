/**
 * The built-in offline provider. It answers with the last user message, so a fresh install runs
 * every execution path end to end without a network or a key, and tests get deterministic output.
 * Its usage is counted with the real tokenizer, so credits move exactly as they would upstream
 * (texts too long to encode quickly are counted by an upper bound, see tokenizer.ts).
 */
import { ECHO_MODEL_ID } from './ai-config.js';
import type { CompletionRequest, CompletionResult } from './ai-types.js';
import { abortedError } from './provider-errors.js';
import { estimateChatTokens, estimateTextTokens } from './tokenizer.js';

export function completeWithEcho(request: CompletionRequest): CompletionResult {
  if (request.signal?.aborted === true) throw abortedError(request.model.provider, request.signal);
  // A request without a user message (only a system prompt) has nothing to echo: answer empty.
  let content = '';
  for (let index = request.messages.length - 1; index >= 0; index -= 1) {
    const message = request.messages[index];
    if (message !== undefined && message.role === 'user') {
      content = message.content;
      break;
    }
  }
  // The output cap is not applied: echo's answer is, by definition, the rendered prompt, and a
  // truncated echo would hide what was sent. Its tokens are still counted honestly.
  const inputTokens = estimateChatTokens(request.messages);
  const outputTokens = estimateTextTokens(content);
  return {
    content,
    modelUsed: ECHO_MODEL_ID,
    usage: { input_tokens: inputTokens, output_tokens: outputTokens, total_tokens: inputTokens + outputTokens },
  };
}
