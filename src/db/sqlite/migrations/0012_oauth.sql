CREATE TABLE `oauth_connections` (
	`key_id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`client_id` text NOT NULL,
	`client_name` text NOT NULL,
	`grant_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `oauth_connections_grant_unique` ON `oauth_connections` (`grant_id`);--> statement-breakpoint
CREATE INDEX `oauth_connections_account_idx` ON `oauth_connections` (`account_id`);--> statement-breakpoint
CREATE TABLE `oauth_records` (
	`model` text NOT NULL,
	`id_hash` text NOT NULL,
	`payload` text NOT NULL,
	`grant_id` text,
	`uid_hash` text,
	`expires_at` integer,
	`consumed_at` integer,
	PRIMARY KEY(`model`, `id_hash`)
);
--> statement-breakpoint
CREATE INDEX `oauth_records_grant_idx` ON `oauth_records` (`grant_id`);--> statement-breakpoint
CREATE INDEX `oauth_records_uid_idx` ON `oauth_records` (`uid_hash`);--> statement-breakpoint
CREATE INDEX `oauth_records_expiry_idx` ON `oauth_records` (`expires_at`);--> statement-breakpoint
ALTER TABLE `api_keys` ADD `kind` text DEFAULT 'user' NOT NULL;