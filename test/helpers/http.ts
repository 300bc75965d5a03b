import { assertDocumented } from "./openapi.js";

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/**
 * fetch, with the body read and parsed when it is JSON. An answer under /v1 must be what
 * the OpenAPI document says (status, headers, body): one that is not throws, naming the
 * call and what differs, so no full-stack test sees an answer the document does not
 * describe (test/helpers/openapi.ts).
 */
export async function api<T = any>(
  baseUrl: string,
  path: string,
  init: RequestInit & { key?: string; json?: unknown } = {},
): Promise<ApiResponse<T>> {
  const headers = new Headers(init.headers);
  if (init.key) headers.set("authorization", `Bearer ${init.key}`);
  let body = init.body;
  if (init.json !== undefined) {
    headers.set("content-type", "application/json");
    body = JSON.stringify(init.json);
  }
  const response = await fetch(baseUrl + path, { ...init, headers, body, redirect: "manual" });
  const text = await response.text();
  let parsed: any = undefined;
  try {
    parsed = text === "" ? undefined : JSON.parse(text);
  } catch {}
  const answer = { status: response.status, headers: response.headers, body: parsed as T, text };
  if (path.startsWith("/v1/")) assertDocumented(init.method ?? "GET", path, answer);
  return answer;
}

/** Polls `check` until it returns true or `ms` pass; returns the elapsed milliseconds. */
export async function waitFor(check: () => Promise<boolean> | boolean, ms = 10_000, every = 100): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > ms) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, every));
  }
}

/** Until the gateway's /readyz reports its database and the catalog service reachable. */
export async function catalogReady(baseUrl: string): Promise<void> {
  await waitFor(
    async () => {
      const ready = await api(baseUrl, "/readyz").catch(() => undefined);
      if (!ready) return false;
      if (ready.status === 200) return true;
      const failed: string[] = (ready.body?.error?.details ?? []).map((detail: { field: string }) => detail.field);
      return !failed.includes("catalog") && !failed.includes("database");
    },
    30_000,
    200,
  );
}

/**
 * `api`, retried as a careful client retries a 503: after its Retry-After (at most 2 s
 * here), a few times. For tests whose subject is not overload, on a machine that is
 * busy running the whole suite (a service may then answer past its short deadline).
 */
export async function apiPatient<T = any>(baseUrl: string, path: string, init: Parameters<typeof api>[2] = {}, tries = 3): Promise<ApiResponse<T>> {
  for (let attempt = 1; ; attempt++) {
    const response = await api<T>(baseUrl, path, init);
    if (response.status !== 503 || attempt >= tries) return response;
    const seconds = Number(response.headers.get("retry-after") ?? "1");
    await new Promise((resolve) => setTimeout(resolve, Math.min(2, Number.isFinite(seconds) ? seconds : 1) * 1000));
  }
}
