CREATE TABLE `execution_slots` (
	`id` text PRIMARY KEY NOT NULL,
	`key_id` text NOT NULL,
	`instance_id` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `execution_slots_key_idx` ON `execution_slots` (`key_id`);--> statement-breakpoint
CREATE INDEX `execution_slots_instance_idx` ON `execution_slots` (`instance_id`);--> statement-breakpoint
CREATE TABLE `instances` (
	`id` text PRIMARY KEY NOT NULL,
	`started_at` integer NOT NULL,
	`lease_expires_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `credit_reservations` ADD `instance_id` text;--> statement-breakpoint
CREATE INDEX `credit_reservations_instance_idx` ON `credit_reservations` (`instance_id`);--> statement-breakpoint
ALTER TABLE `idempotency_records` ADD `instance_id` text;--> statement-breakpoint
CREATE INDEX `idempotency_instance_idx` ON `idempotency_records` (`instance_id`);