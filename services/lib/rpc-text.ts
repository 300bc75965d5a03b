import { create, ScalarType, type DescMessage, type Message } from "@bufbuild/protobuf";
import { isReflectList, isReflectMap, isReflectMessage, reflect, type ReflectMessage } from "@bufbuild/protobuf/reflect";
import { Code, ConnectError } from "@connectrpc/connect";
import { FieldViolationSchema } from "../../gen/order/v1/order_pb.js";
import { textProblem, type TextViolation } from "../../common/text.js";

// Every gRPC request is held to the text rule of text.ts before any handler sees it,
// so a caller that skips the gateway (the CLI, grpcurl, another service) meets the
// same rule. Binary protobuf cannot carry a lone surrogate (UTF-8 has no encoding for
// one), but a NUL or another control character travels fine and would reach SQL.

function walk(message: ReflectMessage, path: string): TextViolation | undefined {
  for (const field of message.fields) {
    if (!message.isSet(field)) continue;
    const name = path ? `${path}.${field.name}` : field.name;
    const check = (value: unknown, at: string): TextViolation | undefined => {
      if (typeof value === "string") {
        const problem = textProblem(value);
        return problem ? { field: at, message: problem } : undefined;
      }
      return isReflectMessage(value) ? walk(value, at) : undefined;
    };
    const value = message.get(field);
    if (field.fieldKind === "scalar" && field.scalar === ScalarType.STRING) {
      const found = check(value, name);
      if (found) return found;
    } else if (field.fieldKind === "message") {
      const found = check(value, name);
      if (found) return found;
    } else if (isReflectList(value)) {
      let i = 0;
      for (const item of value) {
        const found = check(item, `${name}[${i++}]`);
        if (found) return found;
      }
    } else if (isReflectMap(value)) {
      for (const [key, item] of value) {
        const found = check(String(key), `${name}[${String(key)}]`) ?? check(item, `${name}[${String(key)}]`);
        if (found) return found;
      }
    }
  }
  return undefined;
}

/** The first string field of `message` that breaks the text rule. */
export function findMessageTextViolation(schema: DescMessage, message: Message): TextViolation | undefined {
  return walk(reflect(schema, message), "");
}

/** Throws INVALID_ARGUMENT naming the field when a request holds forbidden text. */
export function assertRequestText(schema: DescMessage, message: Message): void {
  const found = findMessageTextViolation(schema, message);
  if (!found) return;
  throw new ConnectError(`${found.field}: ${found.message}`, Code.InvalidArgument, undefined, [
    { desc: FieldViolationSchema, value: create(FieldViolationSchema, { field: found.field, description: found.message }) },
  ]);
}
