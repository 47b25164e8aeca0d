/**
 * MCP prompts: the caller's compositions and personas, so IDE users get them as slash commands.
 * Listing and rendering are the list_prompts and get_prompt operations, called through the
 * shared invocation path; this file only translates their answers into MCP's shapes.
 */
import type { GetPromptResult, Prompt, PromptMessage } from '@modelcontextprotocol/server';
import type { Caller } from '../core/access/caller.js';
import type { ChatMessage } from '../core/ai/tokenizer.js';
import { getPrompt } from '../operations/get-prompt.js';
import { isOperationAllowed } from '../operations/invoke.js';
import { listPrompts } from '../operations/list-prompts.js';
import { invokeCapability, type CapabilityRequest } from './invoke-capability.js';

/** Whether prompts/list shows the key anything; a key without the scopes sees an empty list, as tools/list hides tools. */
export function mayUsePrompts(caller: Caller): boolean {
  return isOperationAllowed(listPrompts, caller.credential.scopes);
}

/**
 * MCP prompt messages have no system role; a system message (a persona's prompt) is sent as the
 * first user message, which is how a client inserting the prompt into a chat can carry it.
 */
function toPromptMessages(messages: readonly ChatMessage[]): PromptMessage[] {
  return messages.map((message) => ({
    role: message.role === 'assistant' ? 'assistant' : 'user',
    content: { type: 'text', text: message.content },
  }));
}

export async function listPromptEntries(request: CapabilityRequest): Promise<Prompt[]> {
  const { prompts } = await invokeCapability(request, listPrompts, {});
  return prompts;
}

export async function getPromptMessages(request: CapabilityRequest, name: string, args: Readonly<Record<string, string>>): Promise<GetPromptResult> {
  const rendered = await invokeCapability(request, getPrompt, { params: { name }, body: { arguments: args } });
  return { ...(rendered.description === null ? {} : { description: rendered.description }), messages: toPromptMessages(rendered.messages) };
}
