// Form posts of the dashboard: urlencoded bodies, read with a limit and held to the
// same text rule as every other door (common/text.ts).
import type { Context } from "koa";
import busboy from "busboy";
import getRawBody from "raw-body";
import { textProblem } from "../../common/text.js";
import { ApiError, invalidRequest } from "../errors.js";

const MAX_FORM_BYTES = 64 * 1024;
const utf8 = new TextDecoder("utf-8", { fatal: true });

export type Form = Record<string, string[]>;

export interface UploadedFile {
  field: string;
  filename: string;
  text: string;
}

/** An upload form (multipart/form-data): its fields and at most one text file of at most `maxFileBytes`. */
export async function readMultipartForm(ctx: Context, maxFileBytes: number): Promise<{ form: Form; file?: UploadedFile }> {
  const declared = Number(ctx.get("content-length") || "0");
  if (declared > maxFileBytes + MAX_FORM_BYTES) throw invalidRequest("the file is larger than 1 MiB", [], 413);
  return new Promise((resolve, reject) => {
    const form: Form = {};
    let file: UploadedFile | undefined;
    let failure: Error | undefined;
    const fail = (error: Error) => (failure ??= error);
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: ctx.req.headers, limits: { files: 1, fields: 20, fieldSize: 4096, fileSize: maxFileBytes } });
    } catch {
      return reject(invalidRequest("the form could not be read"));
    }
    parser.on("field", (name, value) => {
      const problem = textProblem(value) ?? textProblem(name);
      if (problem) fail(invalidRequest(`${name} ${problem}`));
      (form[name] ??= []).push(value);
    });
    parser.on("file", (field, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("limit", () => fail(invalidRequest("the file is larger than 1 MiB", [], 413)));
      stream.on("close", () => {
        try {
          file = { field, filename: info.filename ?? "", text: utf8.decode(Buffer.concat(chunks)) };
        } catch {
          fail(invalidRequest("the file is not UTF-8 text"));
        }
      });
    });
    parser.on("error", () => reject(invalidRequest("the form could not be read")));
    parser.on("close", () => (failure ? reject(failure) : resolve({ form, file })));
    // pipe() does not pass on a client that goes away mid-body: busboy would wait for
    // the rest forever, holding the handler and what it buffered. Settle and let go.
    const interrupted = () => {
      ctx.req.unpipe(parser);
      parser.destroy();
      file = undefined;
      reject(invalidRequest("the upload was interrupted"));
    };
    // The client may be gone already (while the session was being checked).
    if (ctx.req.destroyed && !ctx.req.complete) return interrupted();
    ctx.req.once("close", () => {
      if (!ctx.req.complete) interrupted();
    });
    ctx.req.pipe(parser);
  });
}

/** The posted fields (each may repeat, like checkboxes); 413/415/400 as the API answers them. */
export async function readForm(ctx: Context): Promise<Form> {
  const declared = Number(ctx.get("content-length") || "0");
  if (declared > MAX_FORM_BYTES) throw invalidRequest("form is larger than 64 KiB", [], 413);
  if (!ctx.is("application/x-www-form-urlencoded")) throw new ApiError(415, "INVALID_REQUEST", "form must be application/x-www-form-urlencoded");
  let text: string;
  try {
    text = utf8.decode(await getRawBody(ctx.req, { limit: MAX_FORM_BYTES }));
  } catch (error) {
    if ((error as { type?: string }).type === "entity.too.large") throw invalidRequest("form is larger than 64 KiB", [], 413);
    throw invalidRequest("form is not valid UTF-8");
  }
  const form: Form = {};
  for (const [name, value] of new URLSearchParams(text)) {
    const problem = textProblem(value) ?? textProblem(name);
    if (problem) throw invalidRequest(`${name} ${problem}`);
    (form[name] ??= []).push(value);
  }
  return form;
}

/** One field's value ("" when absent). */
export function field(form: Form, name: string): string {
  return form[name]?.[0] ?? "";
}

/**
 * A whole number as a person types it: "150000" or "150.000" (Indonesian grouping) →
 * 150000n; "" → undefined; anything else (a sign, a fraction, letters) → null. Rupiah
 * amounts and units of stock alike.
 */
export function parseWholeNumber(text: string): bigint | undefined | null {
  const trimmed = text.trim();
  if (trimmed === "") return undefined;
  if (/^[0-9]{1,15}$/.test(trimmed)) return BigInt(trimmed);
  if (/^[0-9]{1,3}(\.[0-9]{3}){1,4}$/.test(trimmed)) return BigInt(trimmed.replace(/\./g, ""));
  return null;
}
