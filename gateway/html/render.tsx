// Sends server-rendered pages (Preact components rendered to a string; text and
// attributes are escaped by the renderer) with the headers every page carries.
import type { Context } from "koa";
import type { ComponentChildren, VNode } from "preact";
import { renderToString } from "preact-render-to-string";

export interface PageOptions {
  /** Origins a form may post or redirect to beyond 'self' (a payment gateway). */
  formAction?: string[];
}

/**
 * The headers of every page: no caching (pages show live state and secrets), a CSP
 * that allows no script and nothing from elsewhere, no framing, no referrer (some URLs
 * are capabilities).
 */
export function setPageHeaders(ctx: Context, options: PageOptions = {}): void {
  const formAction = ["'self'", ...(options.formAction ?? [])].join(" ");
  ctx.set(
    "Content-Security-Policy",
    `default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
  );
  ctx.set("Cache-Control", "no-store");
  ctx.set("Referrer-Policy", "no-referrer");
  ctx.set("X-Content-Type-Options", "nosniff");
  ctx.set("X-Frame-Options", "DENY");
}

export function renderDocument(page: VNode): string {
  return "<!doctype html>\n" + renderToString(page);
}

export function sendHtml(ctx: Context, status: number, page: VNode, options: PageOptions = {}): void {
  setPageHeaders(ctx, options);
  ctx.status = status;
  ctx.type = "text/html; charset=utf-8";
  ctx.body = renderDocument(page);
}

/** The document frame: head, inline styles, and the body's content. */
export function Document(props: { title: string; css: string; lang?: string; bodyClass?: string; children: ComponentChildren }) {
  return (
    <html lang={props.lang ?? "en"}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex, nofollow" />
        <meta name="referrer" content="no-referrer" />
        <title>{props.title}</title>
        <style dangerouslySetInnerHTML={{ __html: props.css }} />
      </head>
      <body class={props.bodyClass}>{props.children}</body>
    </html>
  );
}
