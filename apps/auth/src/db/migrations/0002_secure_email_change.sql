ALTER TABLE "users" ADD COLUMN "email_change_confirm_status" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Changes pending from before this migration were mailed to the new address only: one confirmation
-- (that link) must be enough to apply them.
UPDATE "users" SET "email_change_confirm_status" = 1 WHERE "email_change" IS NOT NULL;
