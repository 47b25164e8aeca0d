ALTER TABLE `compositions` ADD `size_bytes` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `compositions_size_idx` ON `compositions` (`account_id`,`size_bytes`);--> statement-breakpoint
ALTER TABLE `context_cards` ADD `size_bytes` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `context_cards_size_idx` ON `context_cards` (`account_id`,`size_bytes`);--> statement-breakpoint
ALTER TABLE `skills` ADD `size_bytes` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `skills_size_idx` ON `skills` (`account_id`,`size_bytes`);--> statement-breakpoint
ALTER TABLE `workflows` ADD `size_bytes` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `workflows_size_idx` ON `workflows` (`account_id`,`size_bytes`);--> statement-breakpoint
-- Rows written before sizes were kept count as much as src/db/content-size.ts says they would.
UPDATE `context_cards` SET `size_bytes` = length(CAST(`title` AS BLOB)) + length(CAST(`content` AS BLOB)) + coalesce(length(CAST(`category` AS BLOB)), 0) + length(CAST(`tags` AS BLOB)) + coalesce(length(CAST(`description` AS BLOB)), 0) + coalesce(length(CAST(`emoji` AS BLOB)), 0);--> statement-breakpoint
UPDATE `compositions` SET `size_bytes` = length(CAST(`name` AS BLOB)) + length(CAST(`description` AS BLOB)) + length(CAST(`tags` AS BLOB)) + length(CAST(`template` AS BLOB)) + length(CAST(`variables` AS BLOB)) + coalesce(length(CAST(`default_model` AS BLOB)), 0);--> statement-breakpoint
UPDATE `skills` SET `size_bytes` = length(CAST(`name` AS BLOB)) + length(CAST(`description` AS BLOB)) + length(CAST(`category` AS BLOB)) + length(CAST(`instructions` AS BLOB)) + coalesce(length(CAST(`model` AS BLOB)), 0);--> statement-breakpoint
UPDATE `workflows` SET `size_bytes` = length(CAST(`name` AS BLOB)) + length(CAST(`description` AS BLOB)) + length(CAST(`category` AS BLOB)) + length(CAST(`definition` AS BLOB));
