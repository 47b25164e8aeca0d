/**
 * The built-in offline provider. It answers with the last user message, so a fresh install runs
 * every execution path end to end without a network or a key, and tests get deterministic output.
 * Its usage is counted with the real tokenizer, so credits move exactly as they would upstream
 * (texts too long to encode quickly are counted by an upper bound, see tokenizer.ts).
 */
import { ECHO_MODEL_ID } from './ai-config.js';
import type { CompletionRequest, CompletionResult, CompletionStreamEvent } from './ai-types.js';
import { abortedError } from './provider-errors.js';
import { estimateChatTokens, estimateTextTokens } from './tokenizer.js';

/** The last user message: what echo answers. A request with only a system prompt has nothing to echo: empty. */
function echoed(request: CompletionRequest): string {
  for (let index = request.messages.length - 1; index >= 0; index -= 1) {
    const message = request.messages[index];
    if (message !== undefined && message.role === 'user') return message.content;
  }
  return '';
}

export function completeWithEcho(request: CompletionRequest): CompletionResult {
  if (request.signal?.aborted === true) throw abortedError(request.model.provider, request.signal);
  const content = echoed(request);
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

/** Words (with the whitespace after them) per streamed chunk: several chunks for a short answer, as a provider sends. */
const ECHO_WORDS_PER_CHUNK = 1;

/**
 * Echo, streamed: the same answer and usage as completeWithEcho, a word at a time, so streaming
 * runs end to end offline. Each chunk waits for the next turn of the event loop, as a network
 * read would, so a consumer's writes and a cancellation interleave with it as with a provider.
 */
export async function* streamWithEcho(request: CompletionRequest): AsyncGenerator<CompletionStreamEvent> {
  const content = echoed(request);
  const words = content.match(/\s*\S+\s*/g) ?? (content === '' ? [] : [content]);
  for (let index = 0; index < words.length; index += ECHO_WORDS_PER_CHUNK) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (request.signal?.aborted === true) throw abortedError(request.model.provider, request.signal);
    yield { type: 'delta', text: words.slice(index, index + ECHO_WORDS_PER_CHUNK).join('') };
  }
  if (request.signal?.aborted === true) throw abortedError(request.model.provider, request.signal);
  const inputTokens = estimateChatTokens(request.messages);
  const outputTokens = estimateTextTokens(content);
  yield { type: 'end', modelUsed: ECHO_MODEL_ID, usage: { input_tokens: inputTokens, output_tokens: outputTokens, total_tokens: inputTokens + outputTokens } };
}
