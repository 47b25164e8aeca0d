/**
 * Zod schemas of the sanitiser's inputs (organisation rules) and output (the scan result). The
 * output schema is the REST response's and the MCP tool's output schema, so every field says
 * what it means.
 */
import { z } from 'zod';
import { nonBlankText } from '../validation.js';

export const findingSeveritySchema = z
  .enum(['info', 'warn', 'block'])
  .describe('How serious a finding is: info (low risk, worth knowing), warn (review before sending on), block (must not be sent on).');

export const overallSeveritySchema = z
  .enum(['clean', 'info', 'warn', 'block'])
  .describe("The highest severity among the findings; 'clean' when there are none. When truncated, at least the severity of each rule that stopped early.");

export const findingSchema = z
  .object({
    rule_id: z
      .string()
      .describe('Stable id of the rule that matched: a built-in id such as "secret.github_token" or "pii.email", or an organisation rule "custom.<slug>".'),
    label: z.string().describe('Human-readable name of what was found, e.g. "GitHub token".'),
    severity: findingSeveritySchema,
    match: z.string().describe('The matched text, exactly text.slice(start, end).'),
    start: z.number().int().min(0).describe('Start of the match in the scanned text, as a JavaScript string index (UTF-16 code units, 0-based, inclusive).'),
    end: z.number().int().min(0).describe('End of the match, as a JavaScript string index (UTF-16 code units, exclusive).'),
  })
  .describe(
    'One finding. Where rules overlap, the most specific one is kept; the one exception is an organisation rule inside a longer built-in finding, when both are listed and overlap.',
  );

export const scanResultSchema = z
  .object({
    findings: z.array(findingSchema).describe('Every finding, sorted by start (longer match first on ties). Empty when the text is clean.'),
    severity: overallSeveritySchema,
    truncated: z
      .boolean()
      .describe(
        "true when findings does not hold every finding: the text held more than 10,000, or an organisation rule stopped at its limit (1,000 matches or 2,000 searches) before reading the whole text. severity then accounts for what was not read (at least that rule's severity). Scan a text this dense in smaller parts.",
      ),
  })
  .describe("Result of scanning a text against the built-in rules and the organisation's rules.");

export const redactedTextSchema = z
  .string()
  .describe(
    "The scanned text with each finding replaced by a typed placeholder such as [EMAIL_1] or [GITHUB_TOKEN_1]: the type comes from the rule id, and the same value always gets the same placeholder within one text. Findings' offsets still refer to the original text.",
  );

export const scanTextResultSchema = scanResultSchema
  .extend({ redacted_text: redactedTextSchema.optional() })
  .describe("Result of scanning a text against the built-in rules and the organisation's rules; with redact: true, also the redacted text.");

export const CUSTOM_RULE_ID_PATTERN = /^custom\.[a-z0-9][a-z0-9_-]{0,63}$/;

/** Longest custom regex accepted; longer patterns are almost always generated lists of literals. */
export const MAX_CUSTOM_PATTERN_LENGTH = 2_000;
/** Most keywords one keyword rule may hold, and the longest keyword. */
export const MAX_CUSTOM_KEYWORDS = 1_000;
export const MAX_CUSTOM_KEYWORD_LENGTH = 200;
export const MAX_CUSTOM_LABEL_LENGTH = 100;

export const customRuleDefinitionSchema = z
  .object({
    rule_id: z
      .string()
      .regex(CUSTOM_RULE_ID_PATTERN, 'must be "custom." followed by 1-64 lower-case letters, digits, "_" or "-", starting with a letter or digit')
      .describe('Stable id of the rule, "custom.<slug>" (e.g. "custom.project-codenames").'),
    label: nonBlankText(MAX_CUSTOM_LABEL_LENGTH).describe('Name shown on findings of this rule.'),
    severity: findingSeveritySchema,
    enabled: z.boolean().default(true).describe('Disabled rules are stored but not applied.'),
    kind: z.enum(['regex', 'keywords']).describe('regex: an RE2 pattern; keywords: a list of words or phrases matched as whole words.'),
    pattern: z
      .string()
      .min(1)
      .max(MAX_CUSTOM_PATTERN_LENGTH)
      .optional()
      .describe('RE2 regular expression (kind regex). No backreferences or lookaround: RE2 runs in linear time.'),
    flags: z.string().regex(/^i?$/, 'only "i" (case-insensitive) is supported').optional().describe('Regex flags (kind regex): "" or "i".'),
    keywords: z
      .array(z.string().trim().min(1).max(MAX_CUSTOM_KEYWORD_LENGTH))
      .min(1)
      .max(MAX_CUSTOM_KEYWORDS)
      .optional()
      .describe('Words or phrases (kind keywords), matched as whole words.'),
    case_sensitive: z.boolean().optional().describe('Keywords only: match case exactly (default false).'),
  })
  .strict()
  .describe("An organisation's own sanitiser rule.");

export const ruleOverrideSchema = z
  .object({
    rule_id: z.string().min(1).describe('Id of the built-in rule to override (`porch sanitiser builtins` lists them).'),
    enabled: z.boolean().optional().describe('false turns the built-in rule off for the organisation.'),
    severity: findingSeveritySchema.optional(),
  })
  .strict()
  .describe("An organisation's change to one built-in rule.");
