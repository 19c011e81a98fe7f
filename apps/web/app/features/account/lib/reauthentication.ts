import type { User } from '@supabase/auth-js';

/** Where the service sends a reauthentication code (`reauthenticate()`). */
export type CodeChannel = 'email' | 'sms';

/**
 * GoTrue's order: the email when the account has one, else a text to its phone. The page words the
 * code step by it ("We emailed you a code" / "We texted you a code").
 */
export function reauthenticationChannel(user: Pick<User, 'email' | 'phone'>): CodeChannel {
  return !user.email && user.phone ? 'sms' : 'email';
}
