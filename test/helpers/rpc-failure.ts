import { Code, ConnectError } from "@connectrpc/connect";
import { fieldViolations } from "../../platform/field-errors.js";

/** How an RPC failed: its code, the field its FieldViolation names, its message. Throws if it succeeded. */
export async function failure(call: Promise<unknown>): Promise<{ code: Code; field?: string; message: string }> {
  try {
    await call;
  } catch (error) {
    const e = ConnectError.from(error);
    return { code: e.code, field: fieldViolations(e)[0]?.field, message: e.rawMessage };
  }
  throw new Error("the call succeeded");
}
