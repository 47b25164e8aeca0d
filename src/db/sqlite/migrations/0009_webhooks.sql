CREATE TABLE `webhook_attempts` (
	`id` text PRIMARY KEY NOT NULL,
	`endpoint_id` text NOT NULL,
	`event_id` text NOT NULL,
	`attempted_at` integer NOT NULL,
	`status_code` integer,
	`duration_ms` integer NOT NULL,
	`error` text
);
--> statement-breakpoint
CREATE INDEX `webhook_attempts_delivery_idx` ON `webhook_attempts` (`endpoint_id`,`event_id`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`endpoint_id` text NOT NULL,
	`event_id` text NOT NULL,
	`account_id` text NOT NULL,
	`type` text NOT NULL,
	`payload` text,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer,
	`claimed_until` integer,
	`last_attempt_at` integer,
	`last_status_code` integer,
	`last_error` text,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`endpoint_id`, `event_id`)
);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due_idx` ON `webhook_deliveries` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_created_idx` ON `webhook_deliveries` (`created_at`);--> statement-breakpoint
CREATE TABLE `webhook_endpoints` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`url` text NOT NULL,
	`description` text,
	`events` text NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`encrypted_secret` text NOT NULL,
	`previous_encrypted_secret` text,
	`previous_secret_expires_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `webhook_endpoints_account_idx` ON `webhook_endpoints` (`account_id`,`id`);--> statement-breakpoint
ALTER TABLE `credit_balances` ADD `low_balance_threshold_tokens` integer;