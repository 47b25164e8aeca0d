CREATE TABLE "runs" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"key_id" text,
	"kind" text NOT NULL,
	"resource_id" text NOT NULL,
	"version" integer,
	"status" text NOT NULL,
	"model" text,
	"input_tokens" bigint NOT NULL,
	"output_tokens" bigint NOT NULL,
	"total_tokens" bigint NOT NULL,
	"charged_tokens" bigint NOT NULL,
	"duration_ms" integer NOT NULL,
	"created_at" bigint NOT NULL,
	"payload" json
);
--> statement-breakpoint
CREATE INDEX "runs_account_idx" ON "runs" USING btree ("account_id","id");--> statement-breakpoint
CREATE INDEX "runs_created_idx" ON "runs" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "usage_records_account_time_idx" ON "usage_records" USING btree ("account_id","created_at");--> statement-breakpoint
-- Workflow runs recorded before every execution had a run move over as runs of kind workflow: their tokens from the stored result, their key and charge from the run's own usage row. Their inputs were never kept; every resource was at version 1 before versions existed.
INSERT INTO "runs" ("id", "account_id", "key_id", "kind", "resource_id", "version", "status", "model", "input_tokens", "output_tokens", "total_tokens", "charged_tokens", "duration_ms", "created_at", "payload")
SELECT w."id", w."account_id",
  (SELECT coalesce(u."api_key_id", u."partner_key_id") FROM "usage_records" u WHERE u."run_id" = w."id" AND u."node_id" IS NULL LIMIT 1),
  'workflow', w."workflow_id", 1, w."status", NULL,
  coalesce((w."result"->'token_usage'->>'input_tokens')::bigint, 0),
  coalesce((w."result"->'token_usage'->>'output_tokens')::bigint, 0),
  coalesce((w."result"->'token_usage'->>'total_tokens')::bigint, 0),
  coalesce((SELECT u."charged_tokens" FROM "usage_records" u WHERE u."run_id" = w."id" AND u."node_id" IS NULL LIMIT 1), 0),
  w."duration_ms", w."created_at",
  json_build_object('inputs', NULL, 'result', w."result")
FROM "workflow_runs" w;
