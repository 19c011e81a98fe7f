ALTER TABLE "users" ADD COLUMN "privacy_notice_version" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "privacy_notice_accepted_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "users_unconfirmed_created_idx" ON "users" USING btree ("created_at") WHERE email_confirmed_at is null and phone_confirmed_at is null and invited_at is null and not is_anonymous;