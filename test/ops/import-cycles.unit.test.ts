// No module imports itself back through others, type-only imports included: a circle
// makes the two files one unit that can be neither read nor moved apart, and with
// values in it the order modules load in decides what each sees.
import test from "ava";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const CODE = ["common", "lean-grpc", "platform", "services", "gateway", "cli"];

function sourcesUnder(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => path.relative(ROOT, path.join(entry.parentPath, entry.name)));
}

/** The source files `file` imports by a relative path (`./x.js` is x.ts or x.tsx). */
function importsOf(file: string): string[] {
  const text = readFileSync(path.join(ROOT, file), "utf8");
  return [...text.matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)\.js["']/g)]
    .map((match) => path.relative(ROOT, path.resolve(ROOT, path.dirname(file), match[1]!)))
    .flatMap((target) => [`${target}.ts`, `${target}.tsx`].filter((candidate) => existsSync(path.join(ROOT, candidate))));
}

/** Each circle as the files on it, `a → b → a`. */
function circles(files: string[]): string[] {
  const imports = new Map(files.map((file) => [file, importsOf(file)]));
  const found: string[] = [];
  const done = new Set<string>();
  const walk = (file: string, trail: string[]) => {
    const at = trail.indexOf(file);
    if (at !== -1) return void found.push([...trail.slice(at), file].join(" → "));
    if (done.has(file)) return;
    for (const target of imports.get(file) ?? []) walk(target, [...trail, file]);
    done.add(file);
  };
  for (const file of files) walk(file, []);
  return found;
}

test("no import circle in the code, type-only imports included", (t) => {
  const files = CODE.flatMap(sourcesUnder);
  t.true(files.length > 150, "the code's files were found");
  t.deepEqual(circles(files), []);
});
