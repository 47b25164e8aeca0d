/**
 * Every operation, each exposed on the doors its definition names. Adding one: a file in this
 * folder and one line here.
 */
import { analyzePrompt } from './analyze-prompt.js';
import { compositionLifecycle, personaLifecycle, skillLifecycle, workflowLifecycle } from './catalog-lifecycle.js';
import { completeArgument } from './complete-argument.js';
import { createContextCard } from './create-context-card.js';
import { createKey } from './create-key.js';
import { deleteContextCard } from './delete-context-card.js';
import { executeComposition } from './execute-composition.js';
import { executePersona } from './execute-persona.js';
import { executeSkill } from './execute-skill.js';
import { executeWorkflow } from './execute-workflow.js';
import { exportSkillMd } from './export-skill-md.js';
import { getAccount } from './get-account.js';
import { getApiRoot } from './get-api-root.js';
import { getContextCard } from './get-context-card.js';
import { getHealth } from './get-health.js';
import { getPrompt } from './get-prompt.js';
import { getRun } from './get-run.js';
import { cancelRun } from './cancel-run.js';
import { getUsage } from './get-usage.js';
import { listCompositions } from './list-compositions.js';
import { listContextCards } from './list-context-cards.js';
import { listCreditLedger } from './list-credit-ledger.js';
import { listConnectedApps } from './list-connected-apps.js';
import { listKeys } from './list-keys.js';
import { listModels } from './list-models.js';
import { listPersonas } from './list-personas.js';
import { listPrompts } from './list-prompts.js';
import { listRuns } from './list-runs.js';
import { listSkills } from './list-skills.js';
import { listWorkflows } from './list-workflows.js';
import type { Operation } from './operation.js';
import { revokeConnectedApp } from './revoke-connected-app.js';
import { revokeKey } from './revoke-key.js';
import { rotateKey } from './rotate-key.js';
import { runJudge } from './run-judge.js';
import { scanText } from './scan-text.js';
import { updateContextCard } from './update-context-card.js';
import { createWebhook } from './create-webhook.js';
import { deleteWebhook } from './delete-webhook.js';
import { getCreditsLowThreshold } from './get-credits-low-threshold.js';
import { getWebhook } from './get-webhook.js';
import { listWebhookDeliveries } from './list-webhook-deliveries.js';
import { listWebhooks } from './list-webhooks.js';
import { redeliverWebhook } from './redeliver-webhook.js';
import { rotateWebhookSecret } from './rotate-webhook-secret.js';
import { setCreditsLowThreshold } from './set-credits-low-threshold.js';
import { updateWebhook } from './update-webhook.js';
import { deleteSanitiserRule } from './delete-sanitiser-rule.js';
import { getOrganisation } from './get-organisation.js';
import { listByokKeys } from './list-byok-keys.js';
import { listSanitiserRules } from './list-sanitiser-rules.js';
import { putByokKey } from './put-byok-key.js';
import { putSanitiserRule } from './put-sanitiser-rule.js';
import { revokeByokKey } from './revoke-byok-key.js';
import { updateOrganisationPolicies } from './update-organisation-policies.js';

export const operations = [
  analyzePrompt,
  listWorkflows,
  executeWorkflow,
  ...workflowLifecycle.all,
  listCompositions,
  executeComposition,
  ...compositionLifecycle.all,
  listSkills,
  executeSkill,
  exportSkillMd,
  ...skillLifecycle.all,
  listPersonas,
  executePersona,
  ...personaLifecycle.all,
  listContextCards,
  getContextCard,
  createContextCard,
  updateContextCard,
  deleteContextCard,
  runJudge,
  scanText,
  getHealth,
  getApiRoot,
  listPrompts,
  getPrompt,
  completeArgument,
  getAccount,
  listModels,
  listKeys,
  createKey,
  rotateKey,
  revokeKey,
  listConnectedApps,
  revokeConnectedApp,
  getUsage,
  listCreditLedger,
  listRuns,
  getRun,
  cancelRun,
  listWebhooks,
  createWebhook,
  getWebhook,
  updateWebhook,
  deleteWebhook,
  rotateWebhookSecret,
  listWebhookDeliveries,
  redeliverWebhook,
  setCreditsLowThreshold,
  getCreditsLowThreshold,
  getOrganisation,
  updateOrganisationPolicies,
  listSanitiserRules,
  putSanitiserRule,
  deleteSanitiserRule,
  listByokKeys,
  putByokKey,
  revokeByokKey,
] as const satisfies readonly Operation[];

export type { Operation } from './operation.js';
