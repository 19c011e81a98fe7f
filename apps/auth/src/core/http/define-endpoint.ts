// An endpoint is declared once: method, path, access level, zod schemas and handler. From that one
// declaration mountEndpoint() registers the Hono route (behind its access level's guards) and the
// OpenAPI entry, so the document at /openapi.json cannot drift from what is served.
//
// Why not @hono/zod-openapi's `app.openapi(createRoute(...))`: it validates bodies itself (through
// `c.req.json()`, behind a 415 content-type gate, in zod-validator's error shape), which would bypass
// the service's JSON rules (1 MB cap, nesting depth, NUL, empty body = {}, see middleware.ts) and
// change GoTrue's answers. Its registry still generates the document.
import type { OpenAPIHono, RouteConfig } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import { every } from 'hono/combine';
import type { z } from 'zod';
import { type AppEnv, parseBody, queryParam } from './context.ts';
import type { Access } from './guards.ts';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** A response: its description, and for JSON answers the schema of the body. */
type ResponseSpec = string | { description: string; schema: z.ZodType };

type BodyOf<B> = B extends z.ZodType ? z.infer<B> : undefined;
type QueryKey<Q> = Q extends z.ZodObject ? Extract<keyof z.infer<Q>, string> : never;
type ParamKey<P> = P extends z.ZodObject ? Extract<keyof z.infer<P>, string> : never;

export type EndpointInput<B, Q, P> = {
  /** The body, validated with `body` (GoTrue's 400 validation_failed on failure). */
  body: BodyOf<B>;
  /**
   * A declared query parameter: its first value, at most 2048 characters (validation_failed past
   * that). Read when the handler asks, so the handler's own checks keep their order; what a value
   * means (a grant type, a logout scope) is checked by the handler, because GoTrue answers those
   * with their own errors (unsupported_grant_type, …), not with a generic validation failure.
   */
  query: (name: QueryKey<Q>) => string | undefined;
  /** A path parameter (`/factors/{factorId}` → param('factorId')). */
  param: (name: ParamKey<P>) => string;
};

export type EndpointSpec<B, Q, P> = {
  method: Method;
  /** The OpenAPI form, relative to /auth/v1: `/factors/{factorId}`. */
  path: string;
  access: Access;
  summary: string;
  /**
   * An endpoint of ours that GoTrue does not have (the account page's): documented under the
   * "Namaa extensions" tag and flagged `x-namaa-extension`, so a client of the GoTrue wire protocol
   * can tell it will not find it on a hosted Supabase project.
   */
  extension?: true;
  body?: B;
  /**
   * 'handler': the body is validated by the handler rather than before it, with schemas that
   * `body` documents (POST /token: the grant type, from the query, picks the body's schema, and an
   * unknown grant is answered before the body is looked at).
   */
  bodyValidatedBy?: 'handler';
  query?: Q;
  params?: P;
  /** Default: `{ 200: 'OK' }`. */
  responses?: Record<number, ResponseSpec>;
  /** Served but left out of the document (the development mailbox: not part of the API). */
  hidden?: boolean;
  /**
   * A static path beside a parameter sibling of the same method (GoTrue's `/factors/recovery-codes`
   * beside `/factors/{factorId}`): Hono's RegExpRouter cannot order such a pair, and one of them makes
   * the whole app fall back to the slower TrieRouter. Such an endpoint is routed through the
   * parameter's pattern instead (`path` here, declared before the sibling) and runs only when the
   * parameter has `value`; any other value goes on to the sibling.
   */
  routeAs?: { path: string; param: string; value: string };
  handler: (c: Context<AppEnv>, input: EndpointInput<B, Q, P>) => Response | Promise<Response>;
};

/** A declared endpoint, its types erased so features can hand a list of them to app.ts. */
export type Endpoint = EndpointSpec<unknown, unknown, unknown>;

/** Declares an endpoint; the handler's `input` is typed from the schemas. */
export function defineEndpoint<
  B extends z.ZodType | undefined = undefined,
  Q extends z.ZodObject | undefined = undefined,
  P extends z.ZodObject | undefined = undefined,
>(spec: EndpointSpec<B, Q, P>): Endpoint {
  return spec as unknown as Endpoint;
}

/** The Hono form of an OpenAPI path: `/factors/{factorId}` → `/factors/:factorId`. */
export function honoPath(path: string): string {
  return path.replaceAll(/\{([^}]+)\}/g, ':$1');
}

/** The OpenAPI tag of the endpoints that are ours, not GoTrue's. */
export const EXTENSION_TAG = 'Namaa extensions';

function openApiEntry(e: Endpoint): RouteConfig {
  const responses = Object.fromEntries(
    Object.entries(e.responses ?? { 200: 'OK' }).map(([status, spec]) => [
      status,
      typeof spec === 'string'
        ? { description: spec }
        : { description: spec.description, content: { 'application/json': { schema: spec.schema } } },
    ]),
  );
  return {
    method: e.method,
    path: e.path,
    summary: e.summary,
    ...(e.extension
      ? {
          tags: [EXTENSION_TAG],
          description: 'A Namaa extension: not part of the Supabase Auth (GoTrue) API.',
          'x-namaa-extension': true,
        }
      : {}),
    // A signed-in user's endpoints carry the access token, the admin API's an admin credential.
    ...(e.access === 'user' || e.access === 'service' ? { security: [{ bearerAuth: [] }] } : {}),
    request: {
      // biome-ignore lint/suspicious/noExplicitAny: zod-openapi's request types are stricter than needed here
      ...(e.query ? { query: e.query as any } : {}),
      // biome-ignore lint/suspicious/noExplicitAny: see above
      ...(e.params ? { params: e.params as any } : {}),
      // biome-ignore lint/suspicious/noExplicitAny: see above
      ...(e.body ? { body: { content: { 'application/json': { schema: e.body as any } } } } : {}),
    },
    // biome-ignore lint/suspicious/noExplicitAny: see above
    responses: responses as any,
  };
}

/** Serves the endpoint behind `guards` (its access level's chain) and documents it, unless hidden. */
export function mountEndpoint(
  router: OpenAPIHono<AppEnv>,
  e: Endpoint,
  guards: MiddlewareHandler<AppEnv>[],
): void {
  if (!e.hidden) router.openAPIRegistry.registerPath(openApiEntry(e));
  const validateBody = e.body !== undefined && e.bodyValidatedBy !== 'handler';
  const handler: MiddlewareHandler<AppEnv> = async (c) =>
    e.handler(c, {
      body: validateBody ? parseBody(c, e.body as z.ZodType) : undefined,
      query: (name: string) => queryParam(c, name),
      param: (name: string) => c.req.param(name) as string,
    } as EndpointInput<unknown, unknown, unknown>);
  const route = e.routeAs;
  if (!route) {
    router.on([e.method.toUpperCase()], [honoPath(e.path)], ...guards, handler);
    return;
  }
  const chain = every(...guards, handler);
  router.on([e.method.toUpperCase()], [honoPath(route.path)], (c, next) =>
    c.req.param(route.param) === route.value ? chain(c, next) : next(),
  );
}
