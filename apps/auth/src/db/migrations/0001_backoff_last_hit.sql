ALTER TABLE "rate_limit_counters" ADD COLUMN "last_hit_at" timestamp with time zone;--> statement-breakpoint
-- Back-off rows used to carry the last failure in window_start; they now live at the epoch with it in
-- last_hit_at. Old-style rows would never match again, so drop them (at worst a back-off restarts).
DELETE FROM "rate_limit_counters" WHERE "key" LIKE 'backoff:%';
