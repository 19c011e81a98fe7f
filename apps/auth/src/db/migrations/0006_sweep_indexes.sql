-- Issue #28, second part: the back-off / known-network sweep index keyed by the key's kind
-- (split_part: a NOT LIKE cannot use an index on LIKE), and the look-ups of the features merged
-- since (pending phone change, the account export's audit rows, erasing an account's mail,
-- deleting a user with passkey challenges).
DROP INDEX "rate_limit_epoch_idx";--> statement-breakpoint
CREATE INDEX "audit_log_payload_user_idx" ON "audit_log_entries" USING btree ((payload->>'user_id')) WHERE (payload->>'user_id') is not null;--> statement-breakpoint
CREATE INDEX "mail_outbox_user_idx" ON "mail_outbox" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "passkey_challenges_user_idx" ON "passkey_challenges" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "users_phone_change_idx" ON "users" USING btree ("phone_change") WHERE phone_change is not null;--> statement-breakpoint
CREATE INDEX "rate_limit_epoch_idx" ON "rate_limit_counters" USING btree (split_part(key, ':', 1),"last_hit_at") WHERE window_start = '1970-01-01 00:00:00+00';