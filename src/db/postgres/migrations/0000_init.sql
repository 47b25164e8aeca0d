CREATE TABLE "accounts" (
	"id" text PRIMARY KEY NOT NULL,
	"organisation_id" text NOT NULL,
	"email" text NOT NULL,
	"name" text,
	"plan" text NOT NULL,
	"downgraded_at" bigint,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"name" text NOT NULL,
	"prefix" text NOT NULL,
	"hash" text NOT NULL,
	"scopes" json NOT NULL,
	"requests_per_minute" integer NOT NULL,
	"requests_per_day" integer NOT NULL,
	"created_at" bigint NOT NULL,
	"expires_at" bigint,
	"revoked_at" bigint
);
--> statement-breakpoint
CREATE TABLE "byok_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text,
	"organisation_id" text,
	"provider" text NOT NULL,
	"encrypted_key" text NOT NULL,
	"key_hint" text NOT NULL,
	"created_at" bigint NOT NULL,
	"revoked_at" bigint
);
--> statement-breakpoint
CREATE TABLE "compositions" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"name" text NOT NULL,
	"description" text NOT NULL,
	"tags" json NOT NULL,
	"template" text NOT NULL,
	"variables" json NOT NULL,
	"default_model" text,
	"times_used" integer DEFAULT 0 NOT NULL,
	"created_at" bigint NOT NULL,
	"size_bytes" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "context_cards" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"title" text NOT NULL,
	"content" text NOT NULL,
	"category" text,
	"tags" json NOT NULL,
	"description" text,
	"emoji" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	"size_bytes" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "credit_balances" (
	"account_id" text PRIMARY KEY NOT NULL,
	"balance_tokens" bigint NOT NULL,
	"reserved_tokens" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "credit_ledger" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"kind" text NOT NULL,
	"delta_tokens" bigint NOT NULL,
	"balance_after_tokens" bigint NOT NULL,
	"reference" text,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "credit_reservations" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"tokens" bigint NOT NULL,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"instance_id" text
);
--> statement-breakpoint
CREATE TABLE "execution_slots" (
	"id" text PRIMARY KEY NOT NULL,
	"key_id" text NOT NULL,
	"instance_id" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "idempotency_records" (
	"account_id" text NOT NULL,
	"idempotency_key" text NOT NULL,
	"operation" text NOT NULL,
	"request_hash" text NOT NULL,
	"response_status" integer,
	"response_body" json,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"instance_id" text,
	CONSTRAINT "idempotency_records_account_id_idempotency_key_pk" PRIMARY KEY("account_id","idempotency_key")
);
--> statement-breakpoint
CREATE TABLE "instances" (
	"id" text PRIMARY KEY NOT NULL,
	"started_at" bigint NOT NULL,
	"lease_expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "organisations" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"eu_only_models" boolean DEFAULT false NOT NULL,
	"strict_byok" boolean DEFAULT false NOT NULL,
	"owner_account_id" text,
	"sanitiser_rules_version" integer DEFAULT 0 NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "partner_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"organisation_id" text NOT NULL,
	"name" text NOT NULL,
	"prefix" text NOT NULL,
	"hash" text NOT NULL,
	"scopes" json,
	"requests_per_minute" integer NOT NULL,
	"requests_per_day" integer NOT NULL,
	"created_at" bigint NOT NULL,
	"revoked_at" bigint
);
--> statement-breakpoint
CREATE TABLE "rate_limit_counters" (
	"key_id" text PRIMARY KEY NOT NULL,
	"minute_start" bigint NOT NULL,
	"minute_count" integer NOT NULL,
	"day_start" bigint NOT NULL,
	"day_count" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sanitiser_rules" (
	"id" text PRIMARY KEY NOT NULL,
	"organisation_id" text NOT NULL,
	"rule_id" text NOT NULL,
	"kind" text NOT NULL,
	"definition" json NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "skills" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"name" text NOT NULL,
	"description" text NOT NULL,
	"category" text NOT NULL,
	"instructions" text NOT NULL,
	"model" text,
	"created_at" bigint NOT NULL,
	"size_bytes" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "usage_records" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"api_key_id" text,
	"partner_key_id" text,
	"operation" text NOT NULL,
	"resource_id" text,
	"run_id" text,
	"node_id" text,
	"model" text,
	"input_tokens" bigint NOT NULL,
	"output_tokens" bigint NOT NULL,
	"total_tokens" bigint NOT NULL,
	"charged_tokens" bigint NOT NULL,
	"byok" boolean NOT NULL,
	"duration_ms" integer NOT NULL,
	"status" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workflow_runs" (
	"id" text PRIMARY KEY NOT NULL,
	"workflow_id" text NOT NULL,
	"account_id" text NOT NULL,
	"status" text NOT NULL,
	"result" json NOT NULL,
	"duration_ms" integer NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workflows" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"name" text NOT NULL,
	"description" text NOT NULL,
	"category" text NOT NULL,
	"definition" json NOT NULL,
	"usage_count" integer DEFAULT 0 NOT NULL,
	"created_at" bigint NOT NULL,
	"size_bytes" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_organisation_id_organisations_id_fk" FOREIGN KEY ("organisation_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "compositions" ADD CONSTRAINT "compositions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "context_cards" ADD CONSTRAINT "context_cards_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_balances" ADD CONSTRAINT "credit_balances_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "partner_keys" ADD CONSTRAINT "partner_keys_organisation_id_organisations_id_fk" FOREIGN KEY ("organisation_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sanitiser_rules" ADD CONSTRAINT "sanitiser_rules_organisation_id_organisations_id_fk" FOREIGN KEY ("organisation_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "skills" ADD CONSTRAINT "skills_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflows" ADD CONSTRAINT "workflows_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "accounts_email_unique" ON "accounts" USING btree ("email");--> statement-breakpoint
CREATE INDEX "accounts_organisation_idx" ON "accounts" USING btree ("organisation_id");--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_hash_unique" ON "api_keys" USING btree ("hash");--> statement-breakpoint
CREATE INDEX "api_keys_account_idx" ON "api_keys" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "byok_keys_owner_idx" ON "byok_keys" USING btree ("account_id","organisation_id","provider");--> statement-breakpoint
CREATE INDEX "compositions_account_idx" ON "compositions" USING btree ("account_id","id");--> statement-breakpoint
CREATE INDEX "compositions_size_idx" ON "compositions" USING btree ("account_id","size_bytes");--> statement-breakpoint
CREATE INDEX "context_cards_account_idx" ON "context_cards" USING btree ("account_id","id");--> statement-breakpoint
CREATE INDEX "context_cards_category_idx" ON "context_cards" USING btree ("account_id","category","id");--> statement-breakpoint
CREATE INDEX "context_cards_size_idx" ON "context_cards" USING btree ("account_id","size_bytes");--> statement-breakpoint
CREATE INDEX "credit_ledger_account_idx" ON "credit_ledger" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "credit_reservations_expiry_idx" ON "credit_reservations" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "credit_reservations_instance_idx" ON "credit_reservations" USING btree ("instance_id");--> statement-breakpoint
CREATE INDEX "execution_slots_key_idx" ON "execution_slots" USING btree ("key_id");--> statement-breakpoint
CREATE INDEX "execution_slots_instance_idx" ON "execution_slots" USING btree ("instance_id");--> statement-breakpoint
CREATE INDEX "idempotency_expiry_idx" ON "idempotency_records" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "idempotency_instance_idx" ON "idempotency_records" USING btree ("instance_id");--> statement-breakpoint
CREATE UNIQUE INDEX "partner_keys_hash_unique" ON "partner_keys" USING btree ("hash");--> statement-breakpoint
CREATE UNIQUE INDEX "sanitiser_rules_org_rule_unique" ON "sanitiser_rules" USING btree ("organisation_id","rule_id");--> statement-breakpoint
CREATE INDEX "skills_account_idx" ON "skills" USING btree ("account_id","id");--> statement-breakpoint
CREATE INDEX "skills_size_idx" ON "skills" USING btree ("account_id","size_bytes");--> statement-breakpoint
CREATE INDEX "usage_records_account_idx" ON "usage_records" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "usage_records_run_idx" ON "usage_records" USING btree ("run_id");--> statement-breakpoint
CREATE INDEX "workflow_runs_workflow_idx" ON "workflow_runs" USING btree ("workflow_id");--> statement-breakpoint
CREATE INDEX "workflows_account_idx" ON "workflows" USING btree ("account_id","id");--> statement-breakpoint
CREATE INDEX "workflows_size_idx" ON "workflows" USING btree ("account_id","size_bytes");