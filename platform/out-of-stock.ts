// The one way "not enough stock" travels (docs/catalog.md#stock): the catalog refuses a
// new order's hold with FAILED_PRECONDITION carrying the standard google.rpc.ErrorInfo
// (reason OUT_OF_STOCK, each short line's units still available in its metadata) and a
// BadRequest naming each short line, so the order service passes it on untouched and
// the gateway answers 409 OUT_OF_STOCK listing the lines. Standard detail types, so a
// stock gRPC client reads it too.
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { BadRequestSchema, ErrorInfoSchema } from "../gen/google/rpc/error_details_pb.js";

export const OUT_OF_STOCK = "OUT_OF_STOCK";

/** A line of the order that cannot have its quantity: `items[i].quantity` and what is left for it. */
export interface ShortLine {
  /** The line's position in the order's items. */
  index: number;
  /** How many of the line's item can still be ordered (never below 0). */
  available: number;
}

/** The public path naming a short line. */
export function shortLineField(index: number): string {
  return `items[${index}].quantity`;
}

function describe(line: ShortLine): string {
  return line.available === 0 ? "out of stock" : `only ${line.available} available`;
}

/** The catalog's refusal: nothing was held. */
export function outOfStockError(lines: readonly ShortLine[]): ConnectError {
  const first = lines[0]!;
  const metadata = Object.fromEntries(lines.map((line) => [shortLineField(line.index), String(Math.max(0, line.available))]));
  return new ConnectError(`${shortLineField(first.index)}: ${describe(first)}`, Code.FailedPrecondition, undefined, [
    { desc: ErrorInfoSchema, value: create(ErrorInfoSchema, { reason: OUT_OF_STOCK, domain: "catalog", metadata }) },
    {
      desc: BadRequestSchema,
      value: create(BadRequestSchema, { fieldViolations: lines.map((line) => ({ field: shortLineField(line.index), description: describe(line) })) }),
    },
  ]);
}

/** The short lines an error names when it is the catalog's OUT_OF_STOCK; undefined for any other error. */
export function outOfStockLines(error: ConnectError): { field: string; description: string; available: number }[] | undefined {
  const info = error.findDetails(ErrorInfoSchema).find((detail) => detail.reason === OUT_OF_STOCK);
  if (!info) return undefined;
  const violations = error.findDetails(BadRequestSchema).flatMap((bad) => bad.fieldViolations);
  return violations.map(({ field, description }) => ({ field, description, available: Number(info.metadata[field] ?? 0) }));
}
