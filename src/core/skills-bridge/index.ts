/** Agent Skills ⇄ Porch custom skills: SKILL.md parsing and rendering, and the conversions. */
export {
  normaliseBody,
  parseSkillMd,
  renderSkillMd,
  skillNameSchema,
  SKILL_DESCRIPTION_MAX_LENGTH,
  SKILL_NAME_MAX_LENGTH,
  SKILL_NAME_PATTERN,
  type AgentSkillDocument,
} from './skill-md.js';
export {
  agentSkillToPorchSkill,
  importAgentSkill,
  IMPORTED_SKILL_CATEGORY,
  porchSkillToAgentSkill,
  PORCH_METADATA_KEYS,
  slugifySkillName,
  type ImportedAgentSkill,
  type PorchSkillEntry,
} from './convert.js';
