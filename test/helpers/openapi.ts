import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { openApiDocument } from "../../gateway/openapi.js";

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
const DOC_ID = "https://store-order.local/openapi.json";

/** JSON pointer escaping for a path segment. */
const escape = (segment: string) => segment.replace(/~/g, "~0").replace(/\//g, "~1");

/**
 * Validates bodies against the served OpenAPI document with Ajv's JSON Schema
 * 2020-12 dialect (the one OpenAPI 3.1 uses).
 */
export function createOpenApiValidator(document: any = openApiDocument) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ ...document, $id: DOC_ID });
  const cache = new Map<string, ValidateFunction>();
  const compile = (pointer: string) => {
    let fn = cache.get(pointer);
    if (!fn) {
      fn = ajv.compile({ $ref: `${DOC_ID}#${pointer}` });
      cache.set(pointer, fn);
    }
    return fn;
  };
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

  return {
    document,
    resolve,
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
    checkSchema(name: string, value: unknown): string | undefined {
      const validate = compile(`/components/schemas/${name}`);
      return validate(value) ? undefined : ajv.errorsText(validate.errors, { separator: "\n" });
    },
    /** The response's documented header names for (method, path, status). */
    documentedHeaders(method: string, path: string, status: number): string[] {
      const operation = document.paths[path]?.[method.toLowerCase()];
      const response = resolve(operation.responses[String(status)]);
      return Object.keys(response.headers ?? {});
    },
  };
}
