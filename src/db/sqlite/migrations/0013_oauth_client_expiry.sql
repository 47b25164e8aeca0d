-- Registered OAuth clients now expire when unused (CLIENT_IDLE_TTL_SECONDS in src/core/access/oauth.ts:
-- 31 days, pushed ahead on each use). Clients registered before get that idle time from now.
UPDATE `oauth_records` SET `expires_at` = CAST(strftime('%s', 'now') AS INTEGER) * 1000 + 2678400000 WHERE `model` = 'Client' AND `expires_at` IS NULL;
