import type { ParsedUrlQuery } from "node:querystring";
import { isUuid } from "../common/ids.js";
import { inBodyOrder, invalidFields, type FieldError } from "./errors.js";

/** `limit` and `offset` of every paged list (docs/api.md#listing-orders); the routes read them and the document states them. */
export const PAGE_LIMIT = { min: 1, max: 50, fallback: 20 } as const;
export const PAGE_OFFSET = { min: 0, max: 1_000_000_000, fallback: 0 } as const;
/** `limit` of GET /v1/events (docs/api.md#listing-events): up to 100, as a day's catching up wants big pages. */
export const EVENT_PAGE_LIMIT = { min: 1, max: 100, fallback: 20 } as const;

/**
 * Reads a request's query parameters. A wrong one is noted rather than thrown at once,
 * so `check()` answers one INVALID_REQUEST naming every wrong parameter, in the order
 * the URL has them.
 */
export function queryReader(query: ParsedUrlQuery) {
  const problems: FieldError[] = [];
  /** The parameter's one value; undefined when absent or noted as given twice. */
  const single = (name: string): string | undefined => {
    const raw = query[name];
    if (!Array.isArray(raw)) return raw;
    problems.push({ field: name, message: "must be given once" });
    return undefined;
  };
  return {
    /**
     * A strict non-negative integer: `1.5`, `10abc`, `-1`, an empty value or a repeated
     * parameter are refused rather than guessed at. `fallback` when absent or refused.
     */
    int(name: string, { min, max, fallback }: { min: number; max: number; fallback: number }): number {
      const raw = single(name);
      if (raw === undefined) return fallback;
      const value = /^[0-9]{1,10}$/.test(raw) ? Number(raw) : Number.NaN;
      if (!(value >= min && value <= max)) {
        problems.push({ field: name, message: `must be an integer from ${min} to ${max}` });
        return fallback;
      }
      return value;
    },

    /** A UUID, lower-cased; undefined when absent or refused. */
    uuid(name: string): string | undefined {
      const raw = single(name);
      if (raw === undefined) return undefined;
      if (isUuid(raw)) return raw.toLowerCase();
      problems.push({ field: name, message: "must be a UUID" });
      return undefined;
    },

    /** One of `allowed`; undefined when absent or refused. */
    oneOf<T extends string>(name: string, allowed: readonly T[]): T | undefined {
      const raw = single(name);
      if (raw === undefined) return undefined;
      if ((allowed as readonly string[]).includes(raw)) return raw as T;
      problems.push({ field: name, message: `must be one of ${allowed.join(", ")}` });
      return undefined;
    },

    /** The parameter as given (the service judges it); undefined when absent or refused. */
    text(name: string): string | undefined {
      return single(name);
    },

    /** Throws INVALID_REQUEST naming every parameter refused so far. */
    check(): void {
      if (problems.length > 0) throw invalidFields(inBodyOrder(problems, query, (p) => [p.field]));
    },
  };
}
