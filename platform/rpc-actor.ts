// The server's side of the actor (common/actor.ts): each changing RPC reads who acts
// from its request headers and refuses what that actor may not do, with
// PERMISSION_DENIED (the gateway's 403), before anything is written. The headers are
// believed because the call got past the internal token first (rpc-auth.ts): anybody
// who reaches a service's port could write them.
import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import { actorFromHeaders, actorMay, actorMayChangeOrder, type Actor } from "../common/actor.js";
import { PERMISSION_TEXT, type Permission } from "../common/roles.js";
import { missingScopeMessage, ORDER_CHANGE_SCOPE, scopeGranting } from "../common/scopes.js";

/** The actor the request states; PERMISSION_DENIED when it states none. */
export function actorOf(context: Pick<HandlerContext, "requestHeader">): Actor {
  const actor = actorFromHeaders(context.requestHeader);
  if (!actor) throw new ConnectError("the request does not say who acts", Code.PermissionDenied);
  return actor;
}

/** The actor, when it may do what `permission` covers; PERMISSION_DENIED naming what its role may not do otherwise. */
export function requirePermission(context: Pick<HandlerContext, "requestHeader">, permission: Permission): Actor {
  const actor = actorOf(context);
  if (!actorMay(actor, permission)) {
    const scope = actor.kind === "api_key" ? scopeGranting(permission) : undefined;
    if (scope) throw new ConnectError(missingScopeMessage(scope), Code.PermissionDenied);
    const who = actor.kind === "member" ? `the ${actor.role} role` : "an API key";
    throw new ConnectError(`${who} may not ${PERMISSION_TEXT[permission]}`, Code.PermissionDenied);
  }
  return actor;
}

/**
 * The actor, when it may change an order where no money moves (actorMayChangeOrder:
 * cancel a pending order, set metadata); PERMISSION_DENIED naming the missing scope or
 * what the role may not do otherwise.
 */
export function requireOrderChange(context: Pick<HandlerContext, "requestHeader">): Actor {
  const actor = actorOf(context);
  if (actorMayChangeOrder(actor)) return actor;
  if (actor.kind === "api_key") throw new ConnectError(missingScopeMessage(ORDER_CHANGE_SCOPE), Code.PermissionDenied);
  return requirePermission(context, "payments");
}

/**
 * The actor, when it is the platform's own (the operator or the system): what no store
 * member or API key may do, such as creating stores or changing their plans.
 * PERMISSION_DENIED naming who asked and `what` otherwise.
 */
export function requirePlatform(context: Pick<HandlerContext, "requestHeader">, what: string): Actor {
  const actor = actorOf(context);
  if (actor.kind === "member" || actor.kind === "api_key") {
    const who = actor.kind === "member" ? `the ${actor.role} role` : "an API key";
    throw new ConnectError(`${who} may not ${what}: only the operator may`, Code.PermissionDenied);
  }
  return actor;
}
