// How the hosted pages fail: a browser gets a page it can show, every other client the
// API's JSON envelope (docs/api.md#envelope).
import type { Context } from "koa";
import type { Logger } from "../../platform/logger.js";
import { loggablePath, type GatewayContext } from "../context.js";
import { notFound, toApiError } from "../errors.js";
import { sendHtml } from "../html/render.js";
import { messagesFor, thingIn } from "../../common/i18n/index.js";
import { MessagePage } from "./frame.js";
import { pageLanguage } from "./language.js";

/**
 * Whether the client wants a page. Browsers ask for text/html first; API clients and
 * tools (any type, or application/json) get errors in the JSON envelope, as every other
 * route gives them.
 */
export function wantsHtml(ctx: Context): boolean {
  return ctx.accepts("json", "html") === "html";
}

/**
 * Runs a page handler and answers its failures as pages too when a browser asked.
 * Unexpected failures are logged here, since the request logger never sees them as
 * errors.
 */
export function pageHandler<C extends GatewayContext>(logger: Logger, what: string, handler: (ctx: C) => Promise<void> | void) {
  return async (ctx: C) => {
    try {
      await handler(ctx);
    } catch (error) {
      if (!wantsHtml(ctx)) throw error;
      const apiError = toApiError(error);
      const language = pageLanguage(ctx);
      const text = messagesFor(language);
      if (apiError.status === 404) {
        notFoundPage(ctx, what);
      } else if (apiError.status === 503) {
        ctx.set("Retry-After", apiError.headers["Retry-After"] ?? "2");
        sendHtml(
          ctx,
          503,
          <MessagePage title={text.unavailableTitle} message={text.unavailableText} language={language}>
            <p>
              <a href="">{text.tryAgain}</a>
            </p>
          </MessagePage>,
        );
      } else {
        if (apiError.status >= 500) logger.error({ requestId: ctx.state.requestId, path: loggablePath(ctx.path), err: error }, "page failed");
        sendHtml(ctx, apiError.status, <MessagePage title={text.wrongTitle} message={text.wrongText} language={language} />);
      }
    }
  };
}

/** 404 as a page: the id or token in the link matches nothing (or is malformed). */
export function notFoundPage(ctx: Context, what = "order"): void {
  if (!wantsHtml(ctx)) throw notFound(`${what} not found`);
  const language = pageLanguage(ctx);
  const text = messagesFor(language);
  sendHtml(ctx, 404, <MessagePage title={text.notFoundTitle(thingIn(language, what))} message={text.notFoundText} language={language} />);
}
