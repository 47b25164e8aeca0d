ALTER TABLE "organisations" ADD COLUMN "guardrail_inputs" text DEFAULT 'off' NOT NULL;--> statement-breakpoint
ALTER TABLE "organisations" ADD COLUMN "guardrail_outputs" text DEFAULT 'off' NOT NULL;--> statement-breakpoint
ALTER TABLE "organisations" ADD COLUMN "guardrail_min_severity" text DEFAULT 'warn' NOT NULL;