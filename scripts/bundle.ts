/**
 * `deno task bundle`: kubeop as one self-contained file, dist/kubeop.js (`deno run --allow-all dist/kubeop.js run`),
 * built for a small resident footprint (docs/performance.md, "Where the RSS goes"):
 *
 * - `--minify --keep-names`: the source text is held twice for the life of the process (Deno's copy and V8's), so
 *   halving it (3.7 → 1.9 MB, comments and whitespace out) saves ~4 MB; names are kept for stack traces and logs.
 * - ASCII only: V8 stores a source with one non-ASCII character as two bytes per character (7.3 MB instead of 3.7
 *   for the unminified bundle), so every other character is written as a `\uXXXX` escape, which means the same in
 *   strings, templates, regular expressions and identifiers.
 * - `deno bundle --minify` leaves out the `require` that bundled CommonJS packages (prom-client, yaml) call for Node
 *   built-ins; it is put back at the top.
 *
 * Usage: `deno run --allow-all scripts/bundle.ts [--output FILE]` (default dist/kubeop.js).
 * @module
 */

/** Put first in the bundle: the CommonJS `require` (of `node:` built-ins) that a minified `deno bundle` leaves out. */
export const REQUIRE_SHIM =
  `import { createRequire as __kubeopCreateRequire } from "node:module"; var require = __kubeopCreateRequire(import.meta.url);\n`;

/**
 * `text` with every non-ASCII UTF-16 code unit written as a `\uXXXX` escape. An escaped character (`\µ`, which means
 * µ in a string or a regular expression) keeps its backslash: it becomes `\u00b5`.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { asciiOnly } from "./bundle.ts";
 * const src = 'const re = /[a-zµ]/; const s = "→ \\µ";';
 * const out = asciiOnly(src);
 * assert.equal(out, 'const re = /[a-z\\u00b5]/; const s = "\\u2192 \\u00b5";');
 * assert.deepEqual(new Function(`${out}; return [re.test("µ"), s];`)(), [true, "→ µ"]);
 * ```
 */
export function asciiOnly(text: string): string {
  let out = "";
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    let slashes = 0;
    while (i - 1 - slashes >= from && text.charCodeAt(i - 1 - slashes) === 0x5c) slashes++;
    out += text.slice(from, i) + (slashes % 2 === 1 ? "u" : "\\u") + c.toString(16).padStart(4, "0");
    from = i + 1;
  }
  return out + text.slice(from);
}

/** Bundles main.ts into `output` (minified, names kept, ASCII only, `require` restored). */
export async function bundle(output: string): Promise<void> {
  const root = new URL("../", import.meta.url).pathname;
  const raw = `${output}.raw.js`;
  const res = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--quiet", "--minify", "--keep-names", "--output", raw, `${root}main.ts`],
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (res.code !== 0) throw new Error(`deno bundle failed with exit code ${res.code}`);
  const text = await Deno.readTextFile(raw);
  await Deno.remove(raw);
  await Deno.writeTextFile(output, REQUIRE_SHIM + asciiOnly(text));
}

if (import.meta.main) {
  const i = Deno.args.indexOf("--output");
  const output = i >= 0 ? Deno.args[i + 1] : new URL("../dist/kubeop.js", import.meta.url).pathname;
  await Deno.mkdir(output.slice(0, output.lastIndexOf("/")) || ".", { recursive: true });
  await bundle(output);
}
