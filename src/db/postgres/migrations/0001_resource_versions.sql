CREATE TABLE "resource_labels" (
	"resource_id" text NOT NULL,
	"label" text NOT NULL,
	"version" integer NOT NULL,
	"account_id" text NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "resource_labels_resource_id_label_pk" PRIMARY KEY("resource_id","label")
);
--> statement-breakpoint
CREATE TABLE "resource_versions" (
	"resource_id" text NOT NULL,
	"version" integer NOT NULL,
	"account_id" text NOT NULL,
	"kind" text NOT NULL,
	"content" json NOT NULL,
	"author_key_id" text,
	"created_at" bigint NOT NULL,
	"deleted_at" bigint,
	CONSTRAINT "resource_versions_resource_id_version_pk" PRIMARY KEY("resource_id","version")
);
--> statement-breakpoint
ALTER TABLE "compositions" ADD COLUMN "updated_at" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "compositions" ADD COLUMN "version" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "compositions" ADD COLUMN "bundle_key" text;--> statement-breakpoint
ALTER TABLE "context_cards" ADD COLUMN "version" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "context_cards" ADD COLUMN "bundle_key" text;--> statement-breakpoint
ALTER TABLE "skills" ADD COLUMN "updated_at" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "skills" ADD COLUMN "version" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "skills" ADD COLUMN "bundle_key" text;--> statement-breakpoint
ALTER TABLE "usage_records" ADD COLUMN "resource_version" integer;--> statement-breakpoint
ALTER TABLE "workflows" ADD COLUMN "updated_at" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "workflows" ADD COLUMN "version" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "workflows" ADD COLUMN "bundle_key" text;--> statement-breakpoint
CREATE INDEX "resource_versions_deleted_idx" ON "resource_versions" USING btree ("deleted_at");--> statement-breakpoint
CREATE UNIQUE INDEX "compositions_bundle_key_unique" ON "compositions" USING btree ("account_id","bundle_key");--> statement-breakpoint
CREATE UNIQUE INDEX "context_cards_bundle_key_unique" ON "context_cards" USING btree ("account_id","bundle_key");--> statement-breakpoint
CREATE UNIQUE INDEX "skills_bundle_key_unique" ON "skills" USING btree ("account_id","bundle_key");--> statement-breakpoint
CREATE UNIQUE INDEX "workflows_bundle_key_unique" ON "workflows" USING btree ("account_id","bundle_key");--> statement-breakpoint
-- Resources written before versions existed are version 1, updated when they were created.
UPDATE "compositions" SET "updated_at" = "created_at";--> statement-breakpoint
UPDATE "skills" SET "updated_at" = "created_at";--> statement-breakpoint
UPDATE "workflows" SET "updated_at" = "created_at";--> statement-breakpoint
-- Their version 1 holds what src/db/resource-content.ts keeps of each kind.
INSERT INTO "resource_versions" ("resource_id", "version", "account_id", "kind", "content", "author_key_id", "created_at")
  SELECT "id", 1, "account_id", 'contextCards', json_build_object('title', "title", 'content', "content", 'category', "category", 'tags', "tags", 'description', "description", 'emoji', "emoji"), NULL, "updated_at" FROM "context_cards";--> statement-breakpoint
INSERT INTO "resource_versions" ("resource_id", "version", "account_id", "kind", "content", "author_key_id", "created_at")
  SELECT "id", 1, "account_id", 'compositions', json_build_object('name', "name", 'description', "description", 'tags', "tags", 'template', "template", 'variables', "variables", 'defaultModel', "default_model"), NULL, "created_at" FROM "compositions";--> statement-breakpoint
INSERT INTO "resource_versions" ("resource_id", "version", "account_id", "kind", "content", "author_key_id", "created_at")
  SELECT "id", 1, "account_id", 'skills', json_build_object('name', "name", 'description', "description", 'category', "category", 'instructions', "instructions", 'model', "model"), NULL, "created_at" FROM "skills";--> statement-breakpoint
INSERT INTO "resource_versions" ("resource_id", "version", "account_id", "kind", "content", "author_key_id", "created_at")
  SELECT "id", 1, "account_id", 'workflows', json_build_object('name', "name", 'description', "description", 'category', "category", 'definition', "definition"), NULL, "created_at" FROM "workflows";
