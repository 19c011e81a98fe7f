-- Issue #28: an index for every statement an endpoint or a periodic job runs (test/db/plans.test.ts),
-- partial where the column is mostly null. Plain CREATE INDEX: on a large existing PostgreSQL database
-- each one blocks writes to its table while it builds (seconds per million rows).
CREATE INDEX "audit_log_action_idx" ON "audit_log_entries" USING btree ("action","created_at");--> statement-breakpoint
CREATE INDEX "flow_state_expires_at_idx" ON "flow_state" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "flow_state_user_idx" ON "flow_state" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "mail_outbox_done_idx" ON "mail_outbox" USING btree ("created_at") WHERE status in ('sent', 'failed');--> statement-breakpoint
CREATE INDEX "mfa_challenges_expires_at_idx" ON "mfa_challenges" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "mfa_factors_unverified_idx" ON "mfa_factors" USING btree (coalesce(last_challenged_at, created_at)) WHERE status = 'unverified';--> statement-breakpoint
CREATE INDEX "one_time_tokens_expires_at_idx" ON "one_time_tokens" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "rate_limit_epoch_idx" ON "rate_limit_counters" USING btree ((key like 'known:%'),"last_hit_at") WHERE window_start = '1970-01-01 00:00:00+00';--> statement-breakpoint
CREATE INDEX "refresh_tokens_sweep_idx" ON "refresh_tokens" USING btree ("revoked","updated_at");--> statement-breakpoint
CREATE INDEX "sessions_factor_id_idx" ON "sessions" USING btree ("factor_id") WHERE factor_id is not null;--> statement-breakpoint
CREATE INDEX "sessions_created_at_idx" ON "sessions" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "sessions_not_after_idx" ON "sessions" USING btree ("not_after") WHERE not_after is not null;--> statement-breakpoint
CREATE INDEX "users_email_change_idx" ON "users" USING btree ("email_change") WHERE email_change is not null;