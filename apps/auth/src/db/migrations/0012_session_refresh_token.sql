ALTER TABLE "sessions" ADD COLUMN "refresh_token_hash" text;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "refresh_token_previous_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "refreshed_on" date;--> statement-breakpoint
CREATE INDEX "sessions_refreshed_on_idx" ON "sessions" USING btree ("refreshed_on") WHERE refreshed_on is not null;