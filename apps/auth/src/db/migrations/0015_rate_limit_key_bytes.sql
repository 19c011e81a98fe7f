-- An erasure deletes every rate-limit row naming the address (docs/pdpl.md) through the primary key:
-- the per-network keys now put the address before the network (known:signin:<email>:<network>,
-- backoff:signin:<email>:<network>; core/rate-limit.ts), and `key` sorts in byte order, so all the
-- rows of one address are one range of the index whatever the database's locale. Existing rows are
-- rewritten to the new order (an address never holds `:`, so the last part is the address), keeping
-- known networks and back-off streaks. Rebuilds the primary key and rewrites the epoch rows: seconds
-- at a million accounts, once, at the upgrade's start, while sign-ins wait.
ALTER TABLE "rate_limit_counters" ALTER COLUMN "key" TYPE text COLLATE "C";--> statement-breakpoint
UPDATE "rate_limit_counters"
  SET "key" = regexp_replace("key", '^(known|backoff):signin:(.*):([^:]*@[^:]*)$', '\1:signin:\3:\2')
  WHERE "window_start" = timestamptz 'epoch' AND "key" ~ '^(known|backoff):signin:.*:[^:]*@[^:]*$';
