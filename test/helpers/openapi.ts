import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { openApiDocument } from "../../gateway/openapi.js";
import type { ApiResponse } from "./http.js";

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
const DOC_ID = "https://store-order.local/openapi.json";

/** Headers of HTTP itself, and those a proxy on the way adds (test/ops/proxy.test.ts), which no operation documents. */
const FRAMING_HEADERS = new Set(["content-type", "content-length", "date", "connection", "keep-alive", "transfer-encoding", "vary", "server", "via", "alt-svc"]);

/** JSON pointer escaping for a path segment. */
const escape = (segment: string) => segment.replace(/~/g, "~0").replace(/\//g, "~1");

/**
 * Validates bodies against the served OpenAPI document with Ajv's JSON Schema
 * 2020-12 dialect (the one OpenAPI 3.1 uses).
 */
export function createOpenApiValidator(document: any = openApiDocument) {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, inlineRefs: false });
  addFormats(ajv);
  ajv.addSchema({ ...document, $id: DOC_ID });
  const cache = new Map<string, ValidateFunction>();
  const compile = (pointer: string) => {
    let fn = cache.get(pointer);
    if (!fn) {
      // getSchema compiles a fragment once and keeps it, so schemas shared by many
      // responses (Order, the error envelope) are compiled once, not once per response.
      fn = ajv.getSchema(`${DOC_ID}#${pointer}`);
      if (!fn) throw new Error(`the document has no schema at ${pointer}`);
      cache.set(pointer, fn);
    }
    return fn;
  };
  const check = (pointer: string, value: unknown): string | undefined => {
    const validate = compile(pointer);
    return validate(value) ? undefined : ajv.errorsText(validate.errors, { separator: "; " });
  };
  // The documented paths as patterns, those with fewer parameters first, so a literal
  // segment wins over a parameter that would match it too.
  const templates = Object.keys(document.paths)
    .map((path) => ({
      path,
      params: (path.match(/\{/g) ?? []).length,
      pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{[^}]+\\?\}/g, "[^/]+")}/?$`, "i"),
    }))
    .sort((a, b) => a.params - b.params);
  const resolve = (node: any): any => {
    if (node && typeof node.$ref === "string" && node.$ref.startsWith("#/")) {
      return resolve(node.$ref.slice(2).split("/").reduce((at: any, key: string) => at[key.replace(/~1/g, "/").replace(/~0/g, "~")], document));
    }
    return node;
  };

  /** The JSON pointer of the response schema for (method, path template, status). */
  function responsePointer(method: string, path: string, status: number): string {
    const operation = document.paths[path]?.[method.toLowerCase()];
    if (!operation) throw new Error(`${method} ${path} is not in the document`);
    const key = String(status) in operation.responses ? String(status) : `${String(status)[0]}XX`;
    const response = operation.responses[key];
    if (!response) throw new Error(`${method} ${path} documents no ${status} response`);
    if (response.$ref) return `${response.$ref.slice(1)}/content/application~1json/schema`;
    return `/paths/${escape(path)}/${method.toLowerCase()}/responses/${key}/content/application~1json/schema`;
  }

  /** Every schema checkAnswer may use, compiled now: compiling is what costs, so a caller can pay for it before its stack runs. */
  function compileAll(): void {
    for (const [path, item] of Object.entries<any>(document.paths)) {
      for (const [verb, operation] of Object.entries<any>(item)) {
        for (const [key, ref] of Object.entries<any>(operation.responses)) {
          const base = ref.$ref ? ref.$ref.slice(1) : `/paths/${escape(path)}/${verb}/responses/${key}`;
          const response = resolve(ref);
          for (const [name, header] of Object.entries<any>(response.headers ?? {})) {
            compile(header.$ref ? `${header.$ref.slice(1)}/schema` : `${base}/headers/${escape(name)}/schema`);
          }
          if (response.content?.["application/json"]) compile(`${base}/content/application~1json/schema`);
        }
      }
    }
    compile("/components/schemas/ErrorEnvelope");
  }

  return {
    document,
    resolve,
    compileAll,
    /** Errors as text, or undefined when the body matches. */
    checkResponse(method: string, path: string, status: number, body: unknown): string | undefined {
      const validate = compile(responsePointer(method, path, status));
      return validate(body) ? undefined : ajv.errorsText(validate.errors, { separator: "\n" });
    },
    /** Errors as text, or undefined when `body` is a request body the operation documents. */
    checkRequest(method: string, path: string, body: unknown): string | undefined {
      if (!document.paths[path]?.[method.toLowerCase()]?.requestBody) throw new Error(`${method} ${path} documents no request body`);
      const validate = compile(`/paths/${escape(path)}/${method.toLowerCase()}/requestBody/content/application~1json/schema`);
      return validate(body) ? undefined : ajv.errorsText(validate.errors, { separator: "\n" });
    },
    /** Errors as text, or undefined when `body` is what the document's `webhooks[type]` sends. */
    checkWebhook(type: string, body: unknown): string | undefined {
      if (!document.webhooks?.[type]) throw new Error(`the document's webhooks have no ${type}`);
      return check(`/webhooks/${escape(type)}/post/requestBody/content/application~1json/schema`, body);
    },
    checkSchema(name: string, value: unknown): string | undefined {
      const validate = compile(`/components/schemas/${name}`);
      return validate(value) ? undefined : ajv.errorsText(validate.errors, { separator: "\n" });
    },
    /**
     * What is wrong with one answer the gateway gave to `method url` (a path with its
     * query), as lines of text; none when it is what the document says. The operation is
     * found by its path template; its response by the status (or `4XX`); then every
     * header must be documented for that response (HTTP's own framing headers aside), every
     * `required` one present, each value its schema's, and the body its schema's. A path
     * the document does not have must be the 404 (or, on a documented path, the 405) in
     * the error envelope.
     */
    checkAnswer(method: string, url: string, answer: Pick<ApiResponse, "status" | "headers" | "body">): string[] {
      const problems: string[] = [];
      const verb = method.toUpperCase() === "HEAD" ? "get" : method.toLowerCase();
      const path = url.replace(/[?#].*$/s, "");
      const template = templates.find((t) => t.pattern.test(path));
      const operation = template && document.paths[template.path][verb];
      if (!operation) {
        const expected = template ? 405 : 404;
        if (answer.status !== expected) problems.push(`${template ? `the document's ${template.path} has no ${method}` : "no path of the document matches"}, yet the answer is ${answer.status}, not ${expected}`);
        const error = check("/components/schemas/ErrorEnvelope", answer.body);
        if (error) problems.push(`body: ${error}`);
        return problems;
      }
      const where = `${method.toUpperCase()} ${template.path}`;
      const key = [String(answer.status), `${String(answer.status)[0]}XX`, "default"].find((k) => k in operation.responses);
      if (!key) return [`${where} documents no ${answer.status} response (it lists ${Object.keys(operation.responses).join(", ")})`];
      const base = operation.responses[key].$ref ? operation.responses[key].$ref.slice(1) : `/paths/${escape(template.path)}/${verb}/responses/${key}`;
      const response = resolve(operation.responses[key]);

      const declared = new Map(Object.entries<any>(response.headers ?? {}).map(([name, header]) => [name.toLowerCase(), { name, header: resolve(header) }]));
      answer.headers.forEach((value, name) => {
        if (FRAMING_HEADERS.has(name) || (answer.status === 405 && name === "allow")) return;
        const entry = declared.get(name);
        if (!entry) {
          problems.push(`header ${name} is sent but ${where} → ${key} does not document it`);
          return;
        }
        const headerPointer = response.headers[entry.name].$ref ? `${response.headers[entry.name].$ref.slice(1)}/schema` : `${base}/headers/${escape(entry.name)}/schema`;
        const error = check(headerPointer, value);
        if (error) problems.push(`header ${entry.name}: ${error} (value ${JSON.stringify(value)})`);
      });
      for (const [name, { header }] of declared) {
        if (header.required && !answer.headers.has(name)) problems.push(`header ${name} is documented as required for ${where} → ${key} but not sent`);
      }

      const content = response.content?.["application/json"];
      if (method.toUpperCase() !== "HEAD" && content) {
        if (!/^application\/json\b/.test(answer.headers.get("content-type") ?? "")) problems.push(`content-type is ${answer.headers.get("content-type")}, not application/json`);
        const error = check(`${base}/content/application~1json/schema`, answer.body);
        if (error) problems.push(`body (${where} → ${key}): ${error}`);
      }
      return problems;
    },
    /** The response's documented header names for (method, path, status). */
    documentedHeaders(method: string, path: string, status: number): string[] {
      const operation = document.paths[path]?.[method.toLowerCase()];
      const response = resolve(operation.responses[String(status)]);
      return Object.keys(response.headers ?? {});
    },
  };
}

let served: ReturnType<typeof createOpenApiValidator> | undefined;

/** The validator of the served document, made and compiled on first use. */
function servedValidator() {
  if (!served) {
    served = createOpenApiValidator(JSON.parse(JSON.stringify(openApiDocument)));
    served.compileAll();
  }
  return served;
}

/**
 * Compiles the document's schemas now (a few hundred ms of one core). startStack calls
 * it before its services start: compiled at a test's first call instead, it would
 * block the event loop those services share with the test, and their short deadlines
 * could run out.
 */
export function prepareOpenApiValidation(): void {
  servedValidator();
}

/**
 * Throws, naming the call, the status and every problem, when an answer under /v1 is not
 * what the served document says (checkAnswer). The document is compiled once per test
 * process, and each schema once when first used. test/helpers/http.ts `api()` calls this
 * on every /v1 answer, so every full-stack test that calls the API checks the document too.
 */
export function assertDocumented(method: string, url: string, answer: ApiResponse): void {
  const problems = servedValidator().checkAnswer(method, url, answer);
  if (problems.length === 0) return;
  throw new Error(
    [
      `The answer to ${method.toUpperCase()} ${url} (${answer.status}) is not what the OpenAPI document (gateway/openapi.ts) says:`,
      ...problems.map((p) => `  - ${p}`),
      `  body: ${answer.text.slice(0, 1000)}`,
    ].join("\n"),
  );
}
