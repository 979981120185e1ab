// The README and docs/ as a guide: every relative link points at a file inside the repository that exists, every
// #anchor at a heading of its page, and the README stays a front page (≤ 400 lines).
import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);
/** Pages another part of issue 24 adds (`kubeop init`'s guide): checked once they exist. */
const PENDING = new Set(["docs/getting-started.md"]);

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    const m = !fenced && /^#{1,6} (.*)$/.exec(line);
    if (!m) continue;
    const base = m[1].trim().toLowerCase().replace(/[^\p{L}\p{N}_\- ]/gu, "").replaceAll(" ", "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** The targets of markdown links outside code, `[text](target)`. */
function linkTargets(markdown: string): string[] {
  const out: string[] = [];
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (line.startsWith("```") || line.trimStart().startsWith("```")) fenced = !fenced;
    if (fenced) continue;
    for (const m of line.replace(/`[^`]*`/g, "").matchAll(/\]\(([^)\s]+)\)/g)) out.push(m[1]);
  }
  return out;
}

async function pages(): Promise<string[]> {
  const names = ["README.md"];
  for await (const e of Deno.readDir(new URL("docs/", ROOT))) {
    if (e.isFile && e.name.endsWith(".md")) names.push(`docs/${e.name}`);
  }
  return names.sort();
}

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(new URL(path, ROOT));
  } catch (err) {
    if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.IsADirectory) return undefined;
    throw err;
  }
}

Deno.test("docs: every relative link in README.md and docs/ resolves inside the repository, anchors included", async () => {
  const broken: string[] = [];
  for (const page of await pages()) {
    const text = await Deno.readTextFile(new URL(page, ROOT));
    for (const target of linkTargets(text)) {
      if (/^[a-z]+:/.test(target)) continue; // https:, mailto:
      const [pathPart, anchor] = target.split("#", 2);
      const url = new URL(pathPart, new URL(page, ROOT));
      if (!url.href.startsWith(ROOT.href)) {
        broken.push(`${page}: ${target} points outside the repository`);
        continue;
      }
      const file = decodeURIComponent(url.href.slice(ROOT.href.length)).replace(/\/$/, "");
      let exists = true;
      try {
        await Deno.stat(new URL(file, ROOT));
      } catch {
        exists = false;
      }
      if (!exists) {
        if (!PENDING.has(file)) broken.push(`${page}: ${target} → ${file} does not exist`);
        continue;
      }
      if (anchor === undefined || !file.endsWith(".md")) continue;
      const targetText = await readIfExists(file);
      if (targetText !== undefined && !headingAnchors(targetText).has(anchor)) {
        broken.push(`${page}: ${target} → no heading #${anchor} in ${file}`);
      }
    }
  }
  assert.deepEqual(broken, []);
});

Deno.test("docs: the README is a front page of at most 400 lines that links the docs index", async () => {
  const readme = await Deno.readTextFile(new URL("README.md", ROOT));
  const lines = readme.trimEnd().split("\n").length;
  assert(lines <= 400, `README.md has ${lines} lines`);
  assert(linkTargets(readme).includes("docs/README.md"), "README.md links docs/README.md");
});

Deno.test("docs: GitHub's anchors for headings with code, punctuation and repeats", () => {
  const anchors = headingAnchors(
    "# A `kubeop` page\n## Where this differs from k8s.io/apiserver\n```sh\n# not a heading\n```\n## Usage\n## Usage\n",
  );
  assert.deepEqual([...anchors], ["a-kubeop-page", "where-this-differs-from-k8sioapiserver", "usage", "usage-1"]);
});
