CREATE TABLE "oauth_connections" (
	"key_id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"client_id" text NOT NULL,
	"client_name" text NOT NULL,
	"grant_id" text NOT NULL,
	"created_at" bigint NOT NULL,
	"revoked_at" bigint
);
--> statement-breakpoint
CREATE TABLE "oauth_records" (
	"model" text NOT NULL,
	"id_hash" text NOT NULL,
	"payload" text NOT NULL,
	"grant_id" text,
	"uid_hash" text,
	"expires_at" bigint,
	"consumed_at" bigint,
	CONSTRAINT "oauth_records_model_id_hash_pk" PRIMARY KEY("model","id_hash")
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "kind" text DEFAULT 'user' NOT NULL;--> statement-breakpoint
ALTER TABLE "oauth_connections" ADD CONSTRAINT "oauth_connections_key_id_api_keys_id_fk" FOREIGN KEY ("key_id") REFERENCES "public"."api_keys"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oauth_connections" ADD CONSTRAINT "oauth_connections_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "oauth_connections_grant_unique" ON "oauth_connections" USING btree ("grant_id");--> statement-breakpoint
CREATE INDEX "oauth_connections_account_idx" ON "oauth_connections" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "oauth_records_grant_idx" ON "oauth_records" USING btree ("grant_id");--> statement-breakpoint
CREATE INDEX "oauth_records_uid_idx" ON "oauth_records" USING btree ("uid_hash");--> statement-breakpoint
CREATE INDEX "oauth_records_expiry_idx" ON "oauth_records" USING btree ("expires_at");