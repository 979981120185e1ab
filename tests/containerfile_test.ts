/**
 * The Containerfile's structure (no container engine needed): the build context leaves host state out
 * (.containerignore), a failed step fails the build, the image carries OCI labels, runs as nonroot, and copies only
 * paths that exist.
 */
import assert from "node:assert/strict";

const root = new URL("../", import.meta.url);
const containerfile = await Deno.readTextFile(new URL("Containerfile", root));
/** Instructions with their continuation lines joined, comments dropped. */
const instructions = containerfile.replace(/\\\n\s*/g, " ").split("\n").map((l) => l.trim())
  .filter((l) => l && !l.startsWith("#"));

Deno.test(".containerignore keeps node_modules, .cache, .git, dist and .kubeop out of the build context", async () => {
  const ignored = (await Deno.readTextFile(new URL(".containerignore", root))).split("\n").map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));
  for (const path of ["node_modules", ".cache", ".git", "dist", ".kubeop"]) assert.ok(ignored.includes(path), path);
});

Deno.test("no RUN step hides a failure", () => {
  for (const run of instructions.filter((l) => l.startsWith("RUN "))) {
    assert.doesNotMatch(run, /\|\|\s*(true|:|exit 0)\b/, run);
    assert.doesNotMatch(run, /;\s*true\s*$/, run);
  }
  assert.ok(instructions.some((l) => /^RUN deno install\b/.test(l)), "dependencies are installed in a RUN step");
});

Deno.test("the final image carries the OCI labels, the package's license, and runs as nonroot", async () => {
  const finalStage = instructions.slice(instructions.findLastIndex((l) => l.startsWith("FROM ")));
  const labels = finalStage.filter((l) => l.startsWith("LABEL ")).join(" ");
  for (const key of ["title", "description", "source", "licenses", "version", "revision"]) {
    assert.match(labels, new RegExp(`org\\.opencontainers\\.image\\.${key}=`), key);
  }
  const license = JSON.parse(await Deno.readTextFile(new URL("deno.json", root))).license;
  assert.match(labels, new RegExp(`org\\.opencontainers\\.image\\.licenses="${license}"`));
  assert.ok(finalStage.includes("USER 65532:65532"), "nonroot");
  assert.ok(finalStage.some((l) => l.startsWith("ENTRYPOINT [")), "exec-form entrypoint");
});

Deno.test("every path the build copies from the source tree exists", async () => {
  for (const copy of instructions.filter((l) => l.startsWith("COPY --from=builder /src/"))) {
    const path = copy.split(/\s+/)[2].replace("/src/", "");
    if (path.startsWith("dist/")) continue; // built in the image
    assert.ok(await Deno.stat(new URL(path, root)).then(() => true, () => false), `${copy}: ${path} is missing`);
  }
});
