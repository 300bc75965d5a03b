// The one rule for text that enters the system (docs/api.md#robustness): valid
// Unicode without control characters. PostgreSQL refuses NUL in text outright, and
// the other C0 controls, DEL and lone surrogates only ever arrive by accident or with
// intent (log forging, header smuggling, broken clients). The gateway, the services
// and the CLI all check with these functions, so one rule holds at every door.

// C0 controls (U+0000–U+001F) and DEL (U+007F).
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Why `text` may not be stored or echoed, or undefined when it may. */
export function textProblem(text: string): string | undefined {
  if (CONTROL.test(text)) return "must not contain control characters";
  if (!text.isWellFormed()) return "must be valid Unicode (it holds a lone surrogate)";
  return undefined;
}

export interface TextViolation {
  /** The field's path as a client writes it: `buyer.email`, `items[2].title`. */
  field: string;
  message: string;
}

function join(path: string, key: string | number): string {
  return typeof key === "number" ? `${path}[${key}]` : path ? `${path}.${key}` : key;
}

/** How deep a JSON value may nest before it is refused (the API's own bodies use 3). */
export const MAX_JSON_DEPTH = 64;

type Pending = { kind: "value"; value: unknown; path: string; depth: number } | { kind: "key"; path: string; message: string };

/**
 * The first string in a parsed JSON value (object keys included) that breaks the
 * rule, with its path; or the first place the value nests deeper than `maxDepth`.
 * Iterative, so a hostile body cannot exhaust the stack (JSON.parse itself accepts
 * tens of thousands of levels).
 */
export function findTextViolation(value: unknown, maxDepth = MAX_JSON_DEPTH): TextViolation | undefined {
  const pending: Pending[] = [{ kind: "value", value, path: "", depth: 0 }];
  while (pending.length > 0) {
    const next = pending.pop()!;
    if (next.kind === "key") return { field: next.path, message: next.message };
    if (typeof next.value === "string") {
      const message = textProblem(next.value);
      if (message) return { field: next.path || "body", message };
      continue;
    }
    if (next.value === null || typeof next.value !== "object") continue;
    if (next.depth >= maxDepth) return { field: next.path || "body", message: `is nested more than ${maxDepth} levels deep` };
    const children: Pending[] = [];
    if (Array.isArray(next.value)) {
      next.value.forEach((inner, i) => children.push({ kind: "value", value: inner, path: join(next.path, i), depth: next.depth + 1 }));
    } else {
      for (const [key, inner] of Object.entries(next.value)) {
        const keyProblem = textProblem(key);
        // A bad key is named by its escaped, well-formed rendering.
        if (keyProblem) children.push({ kind: "key", path: join(next.path, JSON.stringify(key.toWellFormed()).slice(1, -1)), message: `field name ${keyProblem}` });
        else children.push({ kind: "value", value: inner, path: join(next.path, key), depth: next.depth + 1 });
      }
    }
    // Reversed onto the stack, so the first violation in document order is reported.
    for (let i = children.length - 1; i >= 0; i--) pending.push(children[i]!);
  }
  return undefined;
}
