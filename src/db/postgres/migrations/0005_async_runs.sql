ALTER TABLE "runs" ADD COLUMN "key_kind" text;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "claimed_by" text;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "started_at" bigint;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "finished_at" bigint;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "cancel_requested_at" bigint;--> statement-breakpoint
CREATE INDEX "runs_queued_idx" ON "runs" USING btree ("id") WHERE status = 'queued';--> statement-breakpoint
CREATE INDEX "runs_running_idx" ON "runs" USING btree ("account_id") WHERE status = 'running';--> statement-breakpoint
-- Runs recorded before asynchronous runs were executed in their request: they started and ended when recorded, by the key that is still named.
UPDATE "runs" SET "started_at" = "created_at" - "duration_ms", "finished_at" = "created_at", "key_kind" = CASE WHEN "key_id" IN (SELECT "id" FROM "partner_keys") THEN 'partner_key' WHEN "key_id" IS NOT NULL THEN 'api_key' END;
