import type { ParsedUrlQuery } from "node:querystring";
import { invalidField } from "./errors.js";

/**
 * A strict non-negative integer query parameter: `1.5`, `10abc`, `-1`, an empty value
 * or a repeated parameter are refused rather than guessed at.
 */
export function queryInt(
  query: ParsedUrlQuery,
  name: string,
  { min, max, fallback }: { min: number; max: number; fallback: number },
): number {
  const raw = query[name];
  if (raw === undefined) return fallback;
  if (Array.isArray(raw)) throw invalidField(name, "must be given once");
  if (!/^[0-9]{1,10}$/.test(raw)) throw invalidField(name, `must be an integer from ${min} to ${max}`);
  const value = Number(raw);
  if (value < min || value > max) throw invalidField(name, `must be an integer from ${min} to ${max}`);
  return value;
}

export function queryEnum<T extends string>(query: ParsedUrlQuery, name: string, allowed: readonly T[]): T | undefined {
  const raw = query[name];
  if (raw === undefined) return undefined;
  if (Array.isArray(raw)) throw invalidField(name, "must be given once");
  if (!(allowed as readonly string[]).includes(raw)) throw invalidField(name, `must be one of ${allowed.join(", ")}`);
  return raw as T;
}
