import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import type { RouterInstance as Router } from "@koa/router";
import type { GatewayContext, RouteContext } from "../context.js";
import { notFound } from "../errors.js";
import { openApiDocument } from "../openapi.js";

const require = createRequire(import.meta.url);
const swaggerUiDir = path.dirname(require.resolve("swagger-ui-dist/package.json"));

// Only these files of the viewer are served; nothing else under node_modules is reachable.
const assets: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
};

const page = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Store Order API — reference</title>
  <link rel="icon" href="/docs/assets/favicon-32x32.png">
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="docs"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

const init = `window.ui = SwaggerUIBundle({ url: "/v1/openapi.json", dom_id: "#docs", deepLinking: true, tryItOutEnabled: false });\n`;
const documentJson = JSON.stringify(openApiDocument);

/** GET /v1/openapi.json (no key) and GET /docs, rendered by swagger-ui from npm. */
export function docsRoutes(router: Router) {
  router.get("/v1/openapi.json", openApiJson);
  router.get("/docs", docsPage);
  router.get("/docs/init.js", docsInit);
  router.get("/docs/assets/:file", docsAsset);
}

function openApiJson(ctx: GatewayContext) {
  ctx.type = "application/json";
  ctx.set("Cache-Control", "public, max-age=300");
  ctx.body = documentJson;
}

function docsPage(ctx: GatewayContext) {
  ctx.type = "text/html; charset=utf-8";
  ctx.set(
    "Content-Security-Policy",
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self' data:",
  );
  ctx.body = page;
}

function docsInit(ctx: GatewayContext) {
  ctx.type = "text/javascript; charset=utf-8";
  ctx.body = init;
}

async function docsAsset(ctx: RouteContext) {
  const file = ctx.params.file ?? "";
  const type = assets[file];
  if (!type) throw notFound(`no route for ${ctx.method} ${ctx.path}`);
  ctx.type = type;
  ctx.set("Cache-Control", "public, max-age=86400");
  ctx.body = await readFile(path.join(swaggerUiDir, file));
}
