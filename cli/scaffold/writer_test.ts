import assert from "node:assert/strict";
import { readState, type ScaffoldState, STATE_FILE, writeScaffold } from "./writer.ts";

function emptyState(): ScaffoldState {
  return { name: "demo", kubeop: "../kubeop", kinds: [], files: {} };
}

Deno.test("writeScaffold: creates, leaves equal files, updates its own, skips the user's", async () => {
  const root = await Deno.makeTempDir({ prefix: "kubeop-writer-" });
  try {
    const state = emptyState();
    let report = await writeScaffold(root, { "a.ts": "export const a = 1;\n", "b.md": "# b\n" }, state);
    assert.deepEqual(report.created, ["a.ts", "b.md"]);
    // unchanged on disk, new content: the scaffold's own file is updated
    report = await writeScaffold(root, { "a.ts": "export const a = 2;\n", "b.md": "# b\n" }, state);
    assert.deepEqual(report.updated, ["a.ts"]);
    assert.deepEqual(report.unchanged, ["b.md"]);
    // the user changed a.ts: never overwritten, reported
    await Deno.writeTextFile(`${root}/a.ts`, "export const a = 42; // mine\n");
    report = await writeScaffold(root, { "a.ts": "export const a = 3;\n" }, state);
    assert.deepEqual(report.skipped, ["a.ts"]);
    assert.equal(await Deno.readTextFile(`${root}/a.ts`), "export const a = 42; // mine\n");
    // a file the scaffold never wrote is the user's too
    await Deno.writeTextFile(`${root}/c.ts`, "// mine\n");
    report = await writeScaffold(root, { "c.ts": "export const c = 1;\n" }, state);
    assert.deepEqual(report.skipped, ["c.ts"]);
    const saved = await readState(root);
    assert.ok(saved?.files["b.md"], `${STATE_FILE} records what was written`);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
