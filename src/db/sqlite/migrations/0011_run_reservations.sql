ALTER TABLE `usage_records` ADD `reservation_id` text;--> statement-breakpoint
CREATE INDEX `usage_records_reservation_idx` ON `usage_records` (`reservation_id`);