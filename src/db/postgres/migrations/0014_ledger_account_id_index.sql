-- The ledger is listed by account in id order, and a new entry's id is taken above the account's
-- highest while its balance is held (src/db/ledger-order.ts): both are one seek with the account
-- and the id in one index, which replaces the index on the account alone.
CREATE INDEX "credit_ledger_account_id_idx" ON "credit_ledger" USING btree ("account_id","id");--> statement-breakpoint
DROP INDEX "credit_ledger_account_idx";
