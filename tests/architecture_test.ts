/**
 * The layering rules of docs/ARCHITECTURE.md, checked on every import in the tree (relative specifiers, static and
 * dynamic, type-only included): runtime/ imports no controllers/, apiservice/, testing/, cli/ (its tests may use
 * testing/); production code imports testing/ only in `kubeop dev` (cli/dev.ts); controllers/ and apiservice/ do not
 * import each other; production files form no import cycle; no source file is over 500 lines.
 */
import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);
const SKIP = new Set(["node_modules", ".cache", "dist", ".kubeop", ".git"]);

/** Every .ts file under the repository, repo-relative. */
async function sourceFiles(dir = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(new URL(dir || ".", ROOT))) {
    const path = dir ? `${dir}/${e.name}` : e.name;
    if (e.isDirectory && !SKIP.has(e.name)) out.push(...await sourceFiles(path));
    else if (e.isFile && e.name.endsWith(".ts")) out.push(path);
  }
  return out;
}

/** Joins a relative specifier onto the importing file's folder, as a repo-relative path. */
function resolve(from: string, specifier: string): string {
  const parts = from.split("/").slice(0, -1);
  for (const seg of specifier.split("/")) {
    if (seg === "..") parts.pop();
    else if (seg !== ".") parts.push(seg);
  }
  return parts.join("/");
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+"(\.[^"]+)"|\bimport\(\s*"(\.[^"]+)"\s*\)/g;

/** The relative imports of one file's source (JSDoc examples excluded: they are not the module's imports). */
export function importsOf(file: string, text: string): string[] {
  const code = text.replace(/\/\*\*[\s\S]*?\*\//g, "");
  return [...code.matchAll(IMPORT)].map((m) => resolve(file, m[1] ?? m[2]));
}

const isTestCode = (f: string) =>
  f.endsWith("_test.ts") || /^(tests|bench|examples)\//.test(f) || f.includes("/testdata/");
const isProduction = (f: string) => !isTestCode(f) && !f.startsWith("testing/");

/** Strongly connected components with more than one file (Tarjan), i.e. the import cycles. */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>(),
    low = new Map<string, number>(),
    stack: string[] = [],
    on = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) found.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

const files = (await sourceFiles()).sort();
const texts = new Map(
  await Promise.all(files.map(async (f) => [f, await Deno.readTextFile(new URL(f, ROOT))] as const)),
);
const graph = new Map(files.map((f) => [f, importsOf(f, texts.get(f)!)]));

Deno.test("architecture: runtime/ imports no controllers/, apiservice/, testing/, cli/ (tests beside it may use testing/)", () => {
  const bad = files.filter((f) => f.startsWith("runtime/") && !isTestCode(f)).flatMap((f) =>
    graph.get(f)!.filter((d) => /^(controllers|apiservice|testing|cli|tests|bench)\//.test(d)).map((d) => `${f} → ${d}`)
  );
  assert.deepEqual(bad, []);
});

Deno.test("architecture: production code imports testing/ only in `kubeop dev` (cli/dev.ts)", () => {
  const bad = files.filter((f) => isProduction(f) && f !== "cli/dev.ts").flatMap((f) =>
    graph.get(f)!.filter((d) => d.startsWith("testing/") || /^tests\//.test(d)).map((d) => `${f} → ${d}`)
  );
  assert.deepEqual(bad, []);
});

Deno.test("architecture: controllers/ and apiservice/ do not import each other", () => {
  const bad = files.filter(isProduction).flatMap((f) =>
    graph.get(f)!.filter((d) =>
      (f.startsWith("controllers/") && d.startsWith("apiservice/")) ||
      (f.startsWith("apiservice/") && d.startsWith("controllers/"))
    ).map((d) => `${f} → ${d}`)
  );
  assert.deepEqual(bad, []);
});

Deno.test("architecture: production and testing/ files form no import cycle (type-only imports count)", () => {
  const shipped = new Map([...graph].filter(([f]) => !isTestCode(f)));
  assert.deepEqual(cycles(shipped), []);
});

Deno.test("architecture: the cycle finder finds a cycle (the rule above can fail)", () => {
  const g = new Map([["a.ts", ["b.ts"]], ["b.ts", ["c.ts"]], ["c.ts", ["a.ts"]], ["d.ts", ["a.ts"]]]);
  assert.deepEqual(cycles(g), [["a.ts", "b.ts", "c.ts"]]);
  assert.deepEqual(importsOf("runtime/x/y.ts", 'import type { A } from "../z.ts";\nconst m = import("./w.ts");'), [
    "runtime/z.ts",
    "runtime/x/w.ts",
  ]);
});

Deno.test("architecture: no source file is over 500 lines", () => {
  const long = files.filter((f) => !f.includes("/testdata/"))
    .map((f) => [f, texts.get(f)!.split("\n").length - 1] as const)
    .filter(([, lines]) => lines > 500)
    .map(([f, lines]) => `${f}: ${lines}`);
  assert.deepEqual(long, []);
});
