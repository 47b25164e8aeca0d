-- The judge's second call after an unreadable verdict is marked, so /usage counts the request it
-- serves once (its model call still counts). Rows written before were never retries.
ALTER TABLE `usage_records` ADD `retry` integer DEFAULT false NOT NULL;
