// The admin API (GoTrue's /admin/* and /invite), behind the admin guard (core/http/guards.ts:
// SERVICE_ROLE_KEY or a JWT whose role is in JWT_ADMIN_ROLES). Shapes follow supabase-js's
// GoTrueAdminApi: see ../shared/reference/gotrue-wire-contract.md §2.5.
import type { Context } from 'hono';
import { z } from 'zod';
import type { Deps } from '../../core/deps.ts';
import type { AppEnv } from '../../core/http/context.ts';
import { defineEndpoint, type Endpoint } from '../../core/http/define-endpoint.ts';
import { redirectFor } from '../../core/http/redirect.ts';
import { factorSchema, userSchema } from '../../core/http/response-schemas.ts';
import { parseMetadata, phoneField } from '../../core/http/schemas.ts';
import { deleteUserFactor, listUserFactors } from './admin-factors.ts';
import { bodyUuid, parsePagination, pathUuid } from './admin-input.ts';
import { generateLink, inviteUser } from './admin-links.ts';
import {
  type AdminContext,
  type AdminUserAttributes,
  createUser,
  deleteUser,
  getUser,
  listUsers,
  updateUserById,
} from './admin-users.ts';

// Bounded strings: hostile sizes fail validation before any work. Nulls read as "not given" (the
// client passes its attributes through as the caller wrote them).
const str = (max: number) => z.string().max(max).nullish();
const userAttributes = z.object({
  email: str(1000),
  phone: phoneField().nullish(),
  password: str(1000),
  password_hash: str(1000),
  email_confirm: z.boolean().nullish(),
  phone_confirm: z.boolean().nullish(),
  user_metadata: z.unknown().optional(),
  app_metadata: z.unknown().optional(),
  role: str(100),
  ban_duration: str(64),
});
const createUserBody = userAttributes.extend({ id: str(100) });
const deleteUserBody = z.object({ should_soft_delete: z.boolean().nullish() });
const generateLinkBody = z.object({
  type: z.string().max(50),
  email: str(1000),
  password: str(1000),
  new_email: str(1000),
  data: z.unknown().optional(),
  // supabase-js spreads its options into the body (redirectTo); the query's redirect_to wins.
  redirectTo: str(4096),
  redirect_to: str(4096),
});
const inviteBody = z.object({ email: str(1000), data: z.unknown().optional() });

const userParams = z.object({ userId: z.string().describe('uuid') });
const factorParams = z.object({ userId: z.string().describe('uuid'), factorId: z.string().describe('uuid') });
const redirectQuery = z.object({ redirect_to: z.string().optional() });

const orUndefined = <T>(v: T | null | undefined): T | undefined => (v === null ? undefined : v);

function attributes(b: z.infer<typeof userAttributes>): AdminUserAttributes {
  return {
    email: orUndefined(b.email),
    phone: orUndefined(b.phone),
    password: orUndefined(b.password),
    passwordHash: orUndefined(b.password_hash),
    emailConfirm: orUndefined(b.email_confirm),
    phoneConfirm: orUndefined(b.phone_confirm),
    userMetadata: parseMetadata(b.user_metadata),
    appMetadata: parseMetadata(b.app_metadata),
    role: orUndefined(b.role),
    // "" is GoTrue's "not given" for a ban.
    banDuration: b.ban_duration || undefined,
  };
}

const adminContext = (c: Context<AppEnv>): AdminContext => ({ caller: c.get('admin'), meta: c.get('meta') });

const adminErrors = {
  401: 'no_authorization (malformed Authorization header)',
  403: 'not_admin (not an admin credential) / bad_jwt',
};

export function adminEndpoints(deps: Deps): Endpoint[] {
  return [
    defineEndpoint({
      method: 'get',
      path: '/admin/users',
      access: 'service',
      summary: 'List users, newest first; X-Total-Count and Link (next, last) headers',
      query: z.object({
        page: z.string().optional(),
        per_page: z.string().optional(),
        filter: z.string().optional().describe('case-insensitive substring of the email'),
      }),
      responses: {
        200: {
          description: 'A page of users',
          schema: z.object({ users: z.array(userSchema), aud: z.string() }),
        },
        400: 'validation_failed "Bad Pagination Parameters"',
        ...adminErrors,
      },
      handler: async (c, { query }) => {
        const { page, perPage } = parsePagination(query('page'), query('per_page'));
        const filter = query('filter')?.trim();
        const result = await listUsers(deps, { page, perPage, emailContains: filter || undefined });
        // `page` first: supabase-js reads the page number right after the first "=" of each link.
        const link = (n: number) => `<${c.req.path}?page=${n}&per_page=${perPage}>`;
        const links = [
          ...(page < result.lastPage ? [`${link(page + 1)}; rel="next"`] : []),
          `${link(result.lastPage)}; rel="last"`,
        ];
        c.header('X-Total-Count', String(result.total));
        c.header('Link', links.join(', '));
        return c.json({ users: result.users, aud: deps.config.JWT_AUD });
      },
    }),
    defineEndpoint({
      method: 'post',
      path: '/admin/users',
      access: 'service',
      summary: 'Create a user (password or imported bcrypt/argon2 hash, confirmations, metadata, ban, id)',
      body: createUserBody,
      responses: {
        200: { description: 'The user', schema: userSchema },
        400: 'validation_failed',
        ...adminErrors,
        422: 'email_exists / phone_exists / user_already_exists / weak_password',
      },
      handler: async (c, { body }) => {
        const id = body.id ? bodyUuid(body.id) : undefined;
        return c.json(await createUser(deps, adminContext(c), { ...attributes(body), id }));
      },
    }),
    defineEndpoint({
      method: 'get',
      path: '/admin/users/{userId}',
      access: 'service',
      summary: 'A user by id',
      params: userParams,
      responses: {
        200: { description: 'The user', schema: userSchema },
        ...adminErrors,
        404: 'user_not_found',
      },
      handler: async (c, { param }) => c.json(await getUser(deps, pathUuid(param('userId'), 'user_id'))),
    }),
    defineEndpoint({
      method: 'put',
      path: '/admin/users/{userId}',
      access: 'service',
      summary: 'Update a user: email, phone, password, confirmations, metadata (merged), role, ban_duration',
      params: userParams,
      body: userAttributes,
      responses: {
        200: { description: 'The user', schema: userSchema },
        400: 'validation_failed',
        ...adminErrors,
        404: 'user_not_found',
        422: 'email_exists / phone_exists / weak_password',
      },
      handler: async (c, { param, body }) => {
        const id = pathUuid(param('userId'), 'user_id');
        return c.json(await updateUserById(deps, adminContext(c), id, attributes(body)));
      },
    }),
    defineEndpoint({
      method: 'delete',
      path: '/admin/users/{userId}',
      access: 'service',
      summary: 'Delete a user; should_soft_delete keeps an anonymised row with deleted_at',
      params: userParams,
      body: deleteUserBody,
      responses: { 200: '{}', ...adminErrors, 404: 'user_not_found' },
      handler: async (c, { param, body }) => {
        const id = pathUuid(param('userId'), 'user_id');
        await deleteUser(deps, adminContext(c), id, body.should_soft_delete === true);
        return c.json({});
      },
    }),
    defineEndpoint({
      method: 'get',
      path: '/admin/users/{userId}/factors',
      access: 'service',
      summary: "A user's MFA factors, unverified ones included (a bare array)",
      params: userParams,
      responses: {
        200: { description: 'Factors', schema: z.array(factorSchema) },
        ...adminErrors,
        404: 'user_not_found',
      },
      handler: async (c, { param }) =>
        c.json(await listUserFactors(deps, pathUuid(param('userId'), 'user_id'))),
    }),
    defineEndpoint({
      method: 'delete',
      path: '/admin/users/{userId}/factors/{factorId}',
      access: 'service',
      summary: "Delete one of a user's factors (no AAL2 needed); answers the deleted factor",
      params: factorParams,
      responses: {
        200: { description: 'The deleted factor', schema: factorSchema },
        ...adminErrors,
        404: 'user_not_found / mfa_factor_not_found',
      },
      handler: async (c, { param }) => {
        const userId = pathUuid(param('userId'), 'user_id');
        const factorId = pathUuid(param('factorId'), 'factor_id');
        return c.json(await deleteUserFactor(deps, adminContext(c), userId, factorId));
      },
    }),
    defineEndpoint({
      method: 'post',
      path: '/admin/generate_link',
      access: 'service',
      summary: 'Make a signup, invite, magiclink, recovery or email_change link without mailing it',
      body: generateLinkBody,
      query: redirectQuery,
      responses: {
        200: {
          description:
            "The user's fields plus action_link, email_otp, hashed_token, redirect_to, verification_type",
          schema: userSchema.extend({
            action_link: z.string(),
            email_otp: z.string(),
            hashed_token: z.string(),
            redirect_to: z.string(),
            verification_type: z.string(),
          }),
        },
        400: 'validation_failed',
        ...adminErrors,
        404: 'user_not_found (recovery, email change)',
        422: 'email_exists / weak_password',
      },
      handler: async (c, { body, query }) => {
        const redirectTo = redirectFor(deps, c, query('redirect_to') ?? body.redirectTo ?? body.redirect_to);
        const { user, properties } = await generateLink(deps, adminContext(c), {
          type: body.type,
          email: orUndefined(body.email),
          password: orUndefined(body.password),
          newEmail: orUndefined(body.new_email),
          data: parseMetadata(body.data),
          redirectTo,
        });
        return c.json({ ...user, ...properties });
      },
    }),
    defineEndpoint({
      method: 'post',
      path: '/invite',
      access: 'service',
      summary: 'Invite a user by email (creates the account, mails a link that signs them in)',
      body: inviteBody,
      query: redirectQuery,
      responses: {
        200: { description: 'The invited user (invited_at set)', schema: userSchema },
        400: 'validation_failed',
        ...adminErrors,
        422: 'email_exists (a confirmed account)',
      },
      handler: async (c, { body, query }) => {
        const user = await inviteUser(deps, adminContext(c), {
          email: orUndefined(body.email),
          data: parseMetadata(body.data),
          redirectTo: redirectFor(deps, c, query('redirect_to')),
        });
        return c.json(user);
      },
    }),
  ];
}
