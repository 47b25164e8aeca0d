CREATE TABLE `resource_labels` (
	`resource_id` text NOT NULL,
	`label` text NOT NULL,
	`version` integer NOT NULL,
	`account_id` text NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`resource_id`, `label`)
);
--> statement-breakpoint
CREATE TABLE `resource_versions` (
	`resource_id` text NOT NULL,
	`version` integer NOT NULL,
	`account_id` text NOT NULL,
	`kind` text NOT NULL,
	`content` text NOT NULL,
	`author_key_id` text,
	`created_at` integer NOT NULL,
	`deleted_at` integer,
	PRIMARY KEY(`resource_id`, `version`)
);
--> statement-breakpoint
CREATE INDEX `resource_versions_deleted_idx` ON `resource_versions` (`deleted_at`);--> statement-breakpoint
ALTER TABLE `compositions` ADD `updated_at` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `compositions` ADD `version` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `compositions` ADD `bundle_key` text;--> statement-breakpoint
CREATE UNIQUE INDEX `compositions_bundle_key_unique` ON `compositions` (`account_id`,`bundle_key`);--> statement-breakpoint
ALTER TABLE `context_cards` ADD `version` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `context_cards` ADD `bundle_key` text;--> statement-breakpoint
CREATE UNIQUE INDEX `context_cards_bundle_key_unique` ON `context_cards` (`account_id`,`bundle_key`);--> statement-breakpoint
ALTER TABLE `skills` ADD `updated_at` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `skills` ADD `version` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `skills` ADD `bundle_key` text;--> statement-breakpoint
CREATE UNIQUE INDEX `skills_bundle_key_unique` ON `skills` (`account_id`,`bundle_key`);--> statement-breakpoint
ALTER TABLE `usage_records` ADD `resource_version` integer;--> statement-breakpoint
ALTER TABLE `workflows` ADD `updated_at` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `workflows` ADD `version` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `workflows` ADD `bundle_key` text;--> statement-breakpoint
CREATE UNIQUE INDEX `workflows_bundle_key_unique` ON `workflows` (`account_id`,`bundle_key`);--> statement-breakpoint
-- Resources written before versions existed are version 1, updated when they were created.
UPDATE `compositions` SET `updated_at` = `created_at`;--> statement-breakpoint
UPDATE `skills` SET `updated_at` = `created_at`;--> statement-breakpoint
UPDATE `workflows` SET `updated_at` = `created_at`;--> statement-breakpoint
-- Their version 1 holds what src/db/resource-content.ts keeps of each kind.
INSERT INTO `resource_versions` (`resource_id`, `version`, `account_id`, `kind`, `content`, `author_key_id`, `created_at`)
  SELECT `id`, 1, `account_id`, 'contextCards', json_object('title', `title`, 'content', `content`, 'category', `category`, 'tags', json(`tags`), 'description', `description`, 'emoji', `emoji`), NULL, `updated_at` FROM `context_cards`;--> statement-breakpoint
INSERT INTO `resource_versions` (`resource_id`, `version`, `account_id`, `kind`, `content`, `author_key_id`, `created_at`)
  SELECT `id`, 1, `account_id`, 'compositions', json_object('name', `name`, 'description', `description`, 'tags', json(`tags`), 'template', `template`, 'variables', json(`variables`), 'defaultModel', `default_model`), NULL, `created_at` FROM `compositions`;--> statement-breakpoint
INSERT INTO `resource_versions` (`resource_id`, `version`, `account_id`, `kind`, `content`, `author_key_id`, `created_at`)
  SELECT `id`, 1, `account_id`, 'skills', json_object('name', `name`, 'description', `description`, 'category', `category`, 'instructions', `instructions`, 'model', `model`), NULL, `created_at` FROM `skills`;--> statement-breakpoint
INSERT INTO `resource_versions` (`resource_id`, `version`, `account_id`, `kind`, `content`, `author_key_id`, `created_at`)
  SELECT `id`, 1, `account_id`, 'workflows', json_object('name', `name`, 'description', `description`, 'category', `category`, 'definition', json(`definition`)), NULL, `created_at` FROM `workflows`;
