CREATE TABLE "mfa_recovery_code_sets" (
	"id" uuid PRIMARY KEY NOT NULL,
	"factor_id" uuid NOT NULL,
	"failed_verification_count" integer DEFAULT 0 NOT NULL,
	"verification_locked_until" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "mfa_recovery_code_sets_factor_id_unique" UNIQUE("factor_id")
);
--> statement-breakpoint
CREATE TABLE "mfa_recovery_codes" (
	"set_id" uuid NOT NULL,
	"code_hash" text NOT NULL,
	"used_at" timestamp with time zone,
	CONSTRAINT "mfa_recovery_codes_set_id_code_hash_pk" PRIMARY KEY("set_id","code_hash")
);
--> statement-breakpoint
ALTER TABLE "mfa_recovery_code_sets" ADD CONSTRAINT "mfa_recovery_code_sets_factor_id_mfa_factors_id_fk" FOREIGN KEY ("factor_id") REFERENCES "mfa_factors"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mfa_recovery_codes" ADD CONSTRAINT "mfa_recovery_codes_set_id_mfa_recovery_code_sets_id_fk" FOREIGN KEY ("set_id") REFERENCES "mfa_recovery_code_sets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "mfa_factors_user_recovery_code_key" ON "mfa_factors" USING btree ("user_id") WHERE factor_type = 'recovery_code';