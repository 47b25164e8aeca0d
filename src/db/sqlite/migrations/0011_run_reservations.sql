DROP INDEX `usage_records_account_idx`;--> statement-breakpoint
ALTER TABLE `usage_records` ADD `reservation_id` text;--> statement-breakpoint
CREATE INDEX `usage_records_reservation_idx` ON `usage_records` (`reservation_id`) WHERE "usage_records"."reservation_id" is not null;