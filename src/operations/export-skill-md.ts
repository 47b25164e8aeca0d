import { z } from 'zod';
import { readScopes } from '../core/access/scopes.js';
import { porchSkillToAgentSkill, renderSkillMd } from '../core/skills-bridge/index.js';
import { defineKeyedOperation } from './operation.js';
import { idParams } from './schemas.js';

export const exportSkillMd = defineKeyedOperation({
  name: 'export_skill_md',
  title: 'Export a custom skill as SKILL.md',
  description:
    "Returns one of the caller's custom skills as an Agent Skills SKILL.md (agentskills.io format): front matter with a slug `name`, the `description` and `porch-*` metadata (display name, category, model, id), then the skill's instructions, at its newest version (as `GET /skills/{id}` shows it, whichever version `production` names). Save it as `<name>/SKILL.md` to use the skill in an agent tool; `porch skills import` turns it back into a Porch skill. Answers text/markdown, not the JSON envelope.",
  method: 'GET',
  path: '/skills/{id}/skill.md',
  tag: 'Skills',
  effect: 'read',
  successStatus: 200,
  responseType: 'markdown',
  scopes: readScopes('skill'),
  params: idParams,
  output: z.string().describe('The SKILL.md document.'),
  run: async ({ id }, { core, caller }) => renderSkillMd(porchSkillToAgentSkill(await core.catalog.getNewestSkill(caller.account.id, id))),
});
