-- The audit-log command's --action index on the action alone (was action, created_at): B-tree
-- deduplication keeps one copy of each action per page and a list of row addresses, ~5 B per row
-- instead of ~34; measured 170 B less per account (docs/sizing.md). Newest-first for a common action
-- walks audit_log_created_at_idx; a rare one reads its rows here and sorts them. The new index is
-- built while audit writes wait (seconds at millions of rows, once, at the upgrade's start).
DROP INDEX "audit_log_action_idx";--> statement-breakpoint
CREATE INDEX "audit_log_action_idx" ON "audit_log_entries" USING btree ("action");