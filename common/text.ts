// The one rule for text that enters the system (CONTRACT §2, "Robustness"): valid
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

/**
 * The first string in a parsed JSON value (object keys included) that breaks the
 * rule, with its path. Depth is bounded by the JSON parser's own limits.
 */
export function findTextViolation(value: unknown, path = ""): TextViolation | undefined {
  if (typeof value === "string") {
    const message = textProblem(value);
    return message ? { field: path || "body", message } : undefined;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findTextViolation(value[i], join(path, i));
      if (found) return found;
    }
    return undefined;
  }
  if (value !== null && typeof value === "object") {
    for (const [key, inner] of Object.entries(value)) {
      // A key is named by its well-formed, control-free rendering.
      const keyProblem = textProblem(key);
      if (keyProblem) return { field: join(path, JSON.stringify(key.toWellFormed()).slice(1, -1)), message: `field name ${keyProblem}` };
      const found = findTextViolation(inner, join(path, key));
      if (found) return found;
    }
  }
  return undefined;
}
