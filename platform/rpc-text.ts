import { ScalarType, type DescField, type DescMessage, type Message } from "@bufbuild/protobuf";
import { textProblem, type TextViolation } from "../common/text.js";
import { fieldError } from "./field-errors.js";

// Every gRPC request is held to the text rule of common/text.ts before any handler
// sees it, so a caller that skips the gateway (the CLI, grpcurl, another service) meets
// the same rule. Binary protobuf cannot carry a lone surrogate (UTF-8 has no encoding
// for one), but a NUL or another control character travels fine and would reach SQL.
// This runs on every internal call, so it reads fields directly (no reflection
// objects) and skips, per message type, the fields that can hold no text at all.

const textFields = new Map<DescMessage, DescField[]>();

/** The fields of `schema` that can hold a string, however deep; computed once per type. */
function fieldsWithText(schema: DescMessage, visiting = new Set<DescMessage>()): DescField[] {
  const known = textFields.get(schema);
  if (known) return known;
  visiting.add(schema);
  const holdsText = (field: DescField): boolean => {
    const nested = field.fieldKind === "message" ? field.message : (field.fieldKind === "list" || field.fieldKind === "map") ? field.message : undefined;
    if (field.fieldKind === "map" && field.mapKey === ScalarType.STRING) return true;
    if (nested) return visiting.has(nested) || fieldsWithText(nested, visiting).length > 0;
    return field.scalar === ScalarType.STRING;
  };
  const found = schema.fields.filter(holdsText);
  visiting.delete(schema);
  textFields.set(schema, found);
  return found;
}

function valueOf(message: Record<string, unknown>, field: DescField): unknown {
  if (field.oneof) {
    const chosen = message[field.oneof.localName] as { case?: string; value?: unknown } | undefined;
    return chosen?.case === field.localName ? chosen.value : undefined;
  }
  return message[field.localName];
}

function check(schema: DescMessage | undefined, value: unknown, at: string): TextViolation | undefined {
  if (typeof value === "string") {
    const message = textProblem(value);
    return message ? { field: at, message } : undefined;
  }
  return schema && value && typeof value === "object" ? walk(schema, value as Record<string, unknown>, at) : undefined;
}

function walk(schema: DescMessage, message: Record<string, unknown>, path: string): TextViolation | undefined {
  for (const field of fieldsWithText(schema)) {
    const value = valueOf(message, field);
    if (value === undefined || value === null) continue;
    const name = path ? `${path}.${field.name}` : field.name;
    const nested = field.fieldKind === "scalar" || field.fieldKind === "enum" ? undefined : field.message;
    if (field.fieldKind === "list") {
      const items = value as unknown[];
      for (let i = 0; i < items.length; i++) {
        const found = check(nested, items[i], `${name}[${i}]`);
        if (found) return found;
      }
    } else if (field.fieldKind === "map") {
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
        const found = check(undefined, key, `${name}[${key}]`) ?? check(nested, item, `${name}[${key}]`);
        if (found) return found;
      }
    } else {
      const found = check(nested, value, name);
      if (found) return found;
    }
  }
  return undefined;
}

/** The first string field of `message` that breaks the text rule. */
export function findMessageTextViolation(schema: DescMessage, message: Message): TextViolation | undefined {
  return walk(schema, message, "");
}

/** Throws INVALID_ARGUMENT naming the field when a request holds forbidden text. */
export function assertRequestText(schema: DescMessage, message: Message): void {
  const found = findMessageTextViolation(schema, message);
  if (found) throw fieldError(found.field, found.message);
}
