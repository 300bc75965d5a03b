// The layout the README's "Where things live" describes, read from the imports: the
// gateway and the CLI stand on platform/ and common/, never on a service's code, and
// a service never reaches into another service or the gateway.
import test from "ava";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

function sourcesUnder(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => path.relative(ROOT, path.join(entry.parentPath, entry.name)));
}

/** Each relative import of `file`, as a path from the repository root. */
function importsOf(file: string): string[] {
  const text = readFileSync(path.join(ROOT, file), "utf8");
  return [...text.matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)].map((match) =>
    path.relative(ROOT, path.resolve(ROOT, path.dirname(file), match[1]!)),
  );
}

const offending = (files: string[], forbidden: (target: string, file: string) => boolean) =>
  files.flatMap((file) => importsOf(file).filter((target) => forbidden(target, file)).map((target) => `${file} → ${target}`));

test("no gateway file imports from services/: the gateway stands on platform/, common/ and gen/", (t) => {
  const gateway = sourcesUnder("gateway");
  t.true(gateway.length > 40, "the gateway's files were found");
  t.deepEqual(offending(gateway, (target) => target.startsWith("services/")), []);
});

test("platform/ and common/ import no role: not a service, the gateway or the CLI", (t) => {
  const shared = [...sourcesUnder("platform"), ...sourcesUnder("common")];
  t.true(shared.length > 30);
  t.deepEqual(offending(shared, (target) => /^(services|gateway|cli)\//.test(target)), []);
});

test("a service imports no other service's code and not the gateway", (t) => {
  const services = sourcesUnder("services");
  const serviceOf = (file: string) => file.split("/")[1];
  t.deepEqual(
    offending(services, (target, file) => target.startsWith("gateway/") || (target.startsWith("services/") && serviceOf(target) !== serviceOf(file))),
    [],
  );
});
