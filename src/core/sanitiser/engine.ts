/** The sanitiser's rule engine, as the service loads it on first use (see sanitiser-service.ts). */
export { createSanitiser } from './create-sanitiser.js';
export {
  customRuleCharacters,
  MAX_CUSTOM_RULE_CHARACTERS,
  MAX_CUSTOM_RULES,
  validateCustomRule,
  validateNewCustomRule,
  validateOverride,
} from './custom-rules.js';
