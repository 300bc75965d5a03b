import type { Next } from "koa";
import { actingAs } from "../platform/acting-as.js";
import { planHasApiAccess } from "../common/plans.js";
import { missingScopeMessage, ROUTE_SCOPES, type Scope, type ScopedRoute } from "../common/scopes.js";
import type { Authenticator } from "./auth.js";
import { readJsonBody } from "./body.js";
import type { GatewayContext } from "./context.js";
import { ApiError, forbidden, unauthorized } from "./errors.js";
import { perAddressFailures } from "./per-address.js";
import { storeBucket, type RateLimiter, type RefundableRateLimiter } from "./rate-limit.js";

const BEARER = /^bearer[ \t]+([^\s]+)[ \t]*$/i;

/** One of the checks createGuards puts in front of every keyed route, in their order. */
export type Guard = (ctx: GatewayContext, next: Next) => Promise<void>;

export interface GuardOptions {
  authenticator: Authenticator;
  storeLimiter: RateLimiter;
  failureLimiter: RefundableRateLimiter;
  ratePerMinute: number;
  authFailuresPerMinute: number;
}

function rateLimited(retryAfterSeconds: number, message = "rate limit exceeded"): ApiError {
  return new ApiError(429, "RATE_LIMITED", message, [], { "Retry-After": String(retryAfterSeconds) });
}

/**
 * The checks every keyed `/v1` call passes, in this order: authentication, plan, rate
 * limit, the key's scope, then the body (validation proper is the route's).
 */
export function createGuards(options: GuardOptions) {
  const { authenticator, storeLimiter, failureLimiter, ratePerMinute, authFailuresPerMinute } = options;

  const authFailures = perAddressFailures(failureLimiter, "auth-failures", authFailuresPerMinute);

  async function authenticate(ctx: GatewayContext, next: Next) {
    // The token is taken before the key is looked at and comes back if the key is good:
    // requests in flight at once can never try more keys than the budget holds.
    const attempt = await authFailures.begin(ctx.ip);
    if (!attempt.allowed) throw rateLimited(attempt.retryAfterSeconds, "too many failed authentications");
    const fail = (message: string, invalidToken: boolean) => {
      attempt.failed();
      return unauthorized(message, invalidToken);
    };
    let principal;
    try {
      const header = ctx.get("authorization");
      if (header === "") throw fail("missing Authorization header", false);
      const match = BEARER.exec(header);
      if (!match) throw fail("Authorization header must be 'Bearer <API key>'", false);
      principal = await authenticator.authenticate(match[1]!);
      if (!principal) throw fail("invalid API key", true);
    } finally {
      // Settled before the route runs; an outage (503) is no failure of the client's.
      await attempt.end();
    }
    ctx.state.principal = principal;
    // Every RPC this request makes is the key's, with its scopes: the services check
    // them again for what moves money.
    await actingAs({ kind: "api_key", keyId: principal.keyId, scopes: principal.scopes }, next);
  }

  // Test keys too (docs/keys.md#test-mode): test mode is for building against a store whose plan has the API.
  async function requirePlan(ctx: GatewayContext, next: Next) {
    if (!planHasApiAccess(ctx.state.principal!.plan)) {
      throw new ApiError(403, "PLAN_REQUIRED", "the API is available on the Growth and Scale plans");
    }
    await next();
  }

  async function rateLimit(ctx: GatewayContext, next: Next) {
    const result = await storeLimiter.take(storeBucket(ctx.state.principal!), ratePerMinute);
    ctx.set("RateLimit-Policy", `"store";q=${ratePerMinute};w=60`);
    ctx.set("RateLimit", `"store";r=${result.remaining};t=${result.resetSeconds}`);
    if (!result.allowed) throw rateLimited(result.retryAfterSeconds);
    await next();
  }

  // After the rate limit, so a refusal carries the rate headers like every answer
  // with a key; before the body, so a refused call reads and changes nothing.
  const requireScope = (scope: Scope) =>
    async function requireScope(ctx: GatewayContext, next: Next) {
      if (!ctx.state.principal!.scopes.includes(scope)) throw forbidden(missingScopeMessage(scope));
      await next();
    };

  const body = (limit?: number) =>
    async function body(ctx: GatewayContext, next: Next) {
      ctx.state.body = await readJsonBody(ctx, limit);
      await next();
    };

  return {
    /** The guards of a keyed operation, with the scope ROUTE_SCOPES gives it; `bodyBytes` for a route that accepts larger bodies. */
    for(route: ScopedRoute, bodyBytes?: number): Guard[] {
      return [authenticate, requirePlan, rateLimit, requireScope(ROUTE_SCOPES[route]), body(bodyBytes)];
    },
  };
}

export type KeyedGuards = ReturnType<typeof createGuards>;
