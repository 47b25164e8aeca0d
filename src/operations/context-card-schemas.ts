/** Schemas and settings shared by the five context-card operations. */
import { z } from 'zod';
import { expertScopes } from '../core/access/scopes.js';
import { CARD_LIMITS } from '../core/context-cards/context-cards.js';
import { nonBlankText } from '../core/validation.js';
import { timestampSchema } from './schemas.js';

export const contextCardScopes = expertScopes('context-cards');
export const contextCardTag = 'Context cards';

export const contextCardWriteFields = {
  title: nonBlankText(CARD_LIMITS.titleLength).describe(`Card title (1-${CARD_LIMITS.titleLength} characters).`),
  content: z.string().min(1, 'must not be empty').max(CARD_LIMITS.contentLength).describe(`Card content (up to ${CARD_LIMITS.contentLength} characters).`),
  category: z
    .string()
    .max(CARD_LIMITS.categoryLength)
    .nullable()
    .optional()
    .describe('Optional category; "persona" makes the card a persona whose content is a system prompt (setting or changing it needs write:persona).'),
  tags: z.array(z.string().min(1).max(CARD_LIMITS.tagLength)).max(CARD_LIMITS.tags).optional().describe(`Optional tags (at most ${CARD_LIMITS.tags}).`),
  description: z.string().max(CARD_LIMITS.descriptionLength).nullable().optional().describe('Optional short description.'),
  emoji: z.string().max(CARD_LIMITS.emojiLength).nullable().optional().describe('Optional emoji.'),
};

export const contextCardSchema = z
  .object({
    id: z.uuid().describe('Card id.'),
    title: z.string().describe('Card title.'),
    content: z.string().describe('Card content.'),
    category: z.string().nullable().describe('Category, or null.'),
    tags: z.array(z.string()).describe('Tags.'),
    description: z.string().nullable().describe('Description, or null.'),
    emoji: z.string().nullable().describe('Emoji, or null.'),
    version: z.number().int().positive().describe('Version number: every update makes a new one (1, 2, 3...). Cards have no labels.'),
    created_at: timestampSchema,
    updated_at: timestampSchema,
  })
  .describe('A context card.');
