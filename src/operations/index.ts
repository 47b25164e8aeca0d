/** Every API operation. Adding one: a file in this folder and one line here. */
import { createContextCard } from './create-context-card.js';
import { deleteContextCard } from './delete-context-card.js';
import { executeComposition } from './execute-composition.js';
import { executePersona } from './execute-persona.js';
import { executeSkill } from './execute-skill.js';
import { executeWorkflow } from './execute-workflow.js';
import { exportSkillMd } from './export-skill-md.js';
import { getContextCard } from './get-context-card.js';
import { getHealth } from './get-health.js';
import { listCompositions } from './list-compositions.js';
import { listContextCards } from './list-context-cards.js';
import { listPersonas } from './list-personas.js';
import { listSkills } from './list-skills.js';
import { listWorkflows } from './list-workflows.js';
import { runJudge } from './run-judge.js';
import { scanText } from './scan-text.js';
import type { Operation } from './operation.js';
import { updateContextCard } from './update-context-card.js';

export const operations = [
  listWorkflows,
  executeWorkflow,
  listCompositions,
  executeComposition,
  listSkills,
  executeSkill,
  exportSkillMd,
  listPersonas,
  executePersona,
  listContextCards,
  getContextCard,
  createContextCard,
  updateContextCard,
  deleteContextCard,
  runJudge,
  scanText,
  getHealth,
] as const satisfies readonly Operation[];

export type { Operation } from './operation.js';
