// An order's metadata (docs/orders.md#metadata): the client's own string keys and values,
// set at creation or changed later, where a change names keys to set and keys to
// remove. The rules are here once; the order service enforces them on every request
// (CreateOrder and UpdateOrderMetadata), and the OpenAPI document states the bounds from
// order-limits.ts.
import { MAX_METADATA_KEY_LENGTH, MAX_METADATA_KEYS, MAX_METADATA_VALUE_LENGTH } from "./order-limits.js";
import { textProblem } from "./text.js";

export type Metadata = Record<string, string>;

export interface MetadataProblem {
  /** `metadata` for the whole, `metadata.<key>` for one key. */
  field: string;
  message: string;
}

/** Characters as a person counts them: code points, not UTF-16 units. */
const length = (text: string) => [...text].length;

function keyField(key: string): string {
  return key === "" ? "metadata" : `metadata.${key}`;
}

function keyProblem(key: string): string | undefined {
  const text = textProblem(key);
  if (text) return `key ${text}`;
  const n = length(key);
  return n < 1 || n > MAX_METADATA_KEY_LENGTH ? `keys must be 1 to ${MAX_METADATA_KEY_LENGTH} characters` : undefined;
}

function valueProblem(value: string): string | undefined {
  return textProblem(value) ?? (length(value) > MAX_METADATA_VALUE_LENGTH ? `must be at most ${MAX_METADATA_VALUE_LENGTH} characters` : undefined);
}

/**
 * What is wrong with a change of `current` that sets `set` and removes `remove`, each
 * key and value once, then the count of keys the change leaves (at most
 * MAX_METADATA_KEYS): a change is judged by the metadata it would leave, so a client may
 * swap keys on a full set in one request. Removing a key that is not there is no problem.
 */
export function metadataChangeProblems(current: Metadata, set: Metadata, remove: readonly string[]): MetadataProblem[] {
  const problems: MetadataProblem[] = [];
  for (const [key, value] of Object.entries(set)) {
    const problem = keyProblem(key) ?? valueProblem(value);
    if (problem) problems.push({ field: keyField(key), message: problem });
  }
  for (const key of remove) {
    if (Object.hasOwn(set, key)) problems.push({ field: keyField(key), message: "cannot be both set and removed" });
    else {
      const problem = keyProblem(key);
      if (problem) problems.push({ field: keyField(key), message: problem });
    }
  }
  if (problems.length === 0) {
    const count = Object.keys(mergeMetadata(current, set, remove)).length;
    if (count > MAX_METADATA_KEYS) problems.push({ field: "metadata", message: `must have at most ${MAX_METADATA_KEYS} keys (this change leaves ${count})` });
  }
  return problems;
}

/** `current` with `set` written over it and `remove` taken out; keys in the order first set. */
export function mergeMetadata(current: Metadata, set: Metadata, remove: readonly string[]): Metadata {
  const merged: Metadata = { ...current, ...set };
  for (const key of remove) delete merged[key];
  return merged;
}

/** A PATCH body's `metadata` (a null value removes its key) as the keys to set and to remove. */
export function metadataPatch(patch: Record<string, string | null>): { set: Metadata; remove: string[] } {
  const set: Metadata = {};
  const remove: string[] = [];
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) remove.push(key);
    else set[key] = value;
  }
  return { set, remove };
}
