import type { Context } from "koa";
import getRawBody from "raw-body";
import { findTextViolation } from "../common/text.js";
import { ApiError, invalidField, invalidRequest } from "./errors.js";

export const MAX_BODY_BYTES = 64 * 1024;

/** "64 KiB", "1 MiB": how a limit reads in an error. */
function sizeText(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MiB` : `${bytes / 1024} KiB`;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function hasBody(ctx: Context): boolean {
  const length = ctx.get("content-length");
  return (length !== "" && length !== "0") || ctx.get("transfer-encoding") !== "";
}

/**
 * Reads a JSON request's raw bytes: 413 past `limit` (64 KiB unless a route says
 * otherwise; before reading when the length is declared), 415 when it is not
 * `application/json`. Undefined without a body.
 */
export async function readRawJsonBody(ctx: Context, limit = MAX_BODY_BYTES): Promise<Buffer | undefined> {
  if (!hasBody(ctx)) return undefined;
  const tooLarge = () => invalidRequest(`request body is larger than ${sizeText(limit)}`, [], 413);
  const declared = Number(ctx.get("content-length") || "0");
  if (declared > limit) throw tooLarge();
  if (!ctx.is("application/json")) {
    throw new ApiError(415, "INVALID_REQUEST", "request body must be application/json");
  }
  try {
    return await getRawBody(ctx.req, { limit });
  } catch (error) {
    if ((error as { type?: string }).type === "entity.too.large") throw tooLarge();
    throw error;
  }
}

/**
 * Reads a JSON body (readRawJsonBody's limits), 400 when it is not strict UTF-8, does
 * not parse, nests too deep or holds forbidden text. `undefined` without a body.
 */
export async function readJsonBody(ctx: Context, limit = MAX_BODY_BYTES): Promise<unknown> {
  const bytes = await readRawJsonBody(ctx, limit);
  if (bytes === undefined) return undefined;
  let text: string;
  try {
    // Strict: invalid UTF-8 (an overlong form, an encoded surrogate) is refused rather
    // than turned into U+FFFD and stored.
    text = utf8.decode(bytes);
  } catch {
    throw invalidRequest("request body is not valid UTF-8");
  }
  if (text.trim() === "") return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidRequest("request body is not valid JSON");
  }
  const violation = findTextViolation(value);
  if (violation) throw invalidField(violation.field, violation.message);
  return value;
}
