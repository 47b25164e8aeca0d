/**
 * The schemas the OpenAPI document defines once, under `components.schemas`, and references
 * wherever they occur: the large ones several operations share (the workflow node, in the request
 * and the answer of every workflow operation, was written out in full in each). They are named
 * through zod's own `metadata` option of `z.toJSONSchema`, which extracts every schema with an
 * `id` into `$defs`, rather than with `.meta({ id })` on the schemas: that would name them in the
 * global registry, and so change the MCP tools' schemas too, which models read rather than client
 * generators. A test fails when another large schema is written out three times or more.
 */
import { z } from 'zod';
import { workflowNodeSchema } from '../../core/engine/workflow-definition.js';
import { compositionLifecycle, personaLifecycle, skillLifecycle, workflowLifecycle } from '../../operations/catalog-lifecycle.js';
import { contextCardSchema } from '../../operations/context-card-schemas.js';
import { guardrailFindingsSchema } from '../../operations/execution-schemas.js';
import { byokKeySchema, organisationPoliciesSchema } from '../../operations/organisation-schemas.js';
import { ownKeySchema } from '../../operations/self-service-schemas.js';
import { webhookEndpointSchema } from '../../operations/webhook-schemas.js';

/** Each shared schema and its name in `components.schemas`. */
const COMPONENT_SCHEMAS: ReadonlyArray<readonly [z.core.$ZodType, string]> = [
  [workflowNodeSchema, 'WorkflowNode'],
  [workflowLifecycle.get.output, 'Workflow'],
  [compositionLifecycle.get.output, 'Composition'],
  [skillLifecycle.get.output, 'Skill'],
  [personaLifecycle.get.output, 'Persona'],
  // One labels view and one version summary serve every kind.
  [workflowLifecycle.setLabel.output, 'Labels'],
  [workflowLifecycle.listVersions.output.shape.items.element, 'VersionSummary'],
  [contextCardSchema, 'ContextCard'],
  [ownKeySchema, 'ApiKey'],
  [webhookEndpointSchema, 'WebhookEndpoint'],
  [byokKeySchema, 'ByokKey'],
  [organisationPoliciesSchema, 'OrganisationPolicies'],
  [guardrailFindingsSchema.unwrap().element, 'GuardrailFinding'],
];

/**
 * The global registry's metadata (descriptions, examples, the ids schemas give themselves), with
 * the component name as `id` for the schemas above.
 */
class ComponentRegistry extends z.core.$ZodRegistry<z.core.GlobalMeta> {
  private readonly names: ReadonlyMap<z.core.$ZodType, string>;

  constructor(components: ReadonlyArray<readonly [z.core.$ZodType, string]>) {
    super();
    this.names = new Map(components);
  }

  override get<Schema extends z.core.$ZodType>(schema: Schema): z.core.GlobalMeta | undefined {
    const meta = z.globalRegistry.get(schema);
    const id = this.names.get(schema);
    return id === undefined ? meta : { ...meta, id };
  }
}

export const COMPONENT_REGISTRY: z.core.$ZodRegistry<z.core.GlobalMeta> = new ComponentRegistry(COMPONENT_SCHEMAS);
