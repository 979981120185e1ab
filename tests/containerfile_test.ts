/**
 * The Containerfile's structure (no container engine needed): the build context leaves host state out
 * (.containerignore), a failed step fails the build, the image carries OCI labels, runs as nonroot, and copies only
 * paths that exist.
 */
import assert from "node:assert/strict";
import YAML from "yaml";

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

Deno.test("the Deployments run the image's numeric nonroot user on a read-only root, writing only to mounted, allowed directories", async () => {
  const finalStage = instructions.slice(instructions.findLastIndex((l) => l.startsWith("FROM ")));
  const user = finalStage.find((l) => l.startsWith("USER "));
  // runAsNonRoot can be enforced by the kubelet only for a numeric user.
  assert.match(user ?? "", /^USER [1-9]\d*:\d+$/, "a numeric, non-zero USER");
  const task: string = JSON.parse(await Deno.readTextFile(new URL("deno.json", root))).tasks["compile:in-cluster"];
  const allowWrite = (/--allow-write=(\S+)/.exec(task)?.[1] ?? "").split(",").filter(Boolean);
  assert.ok(allowWrite.length > 0, task);
  const under = (path: string, dirs: string[]) => dirs.some((d) => path === d || path.startsWith(`${d}/`));
  for (const file of ["deploy/operator/deployment.yaml", "deploy/apiservice/deployment.yaml"]) {
    const docs = YAML.parseAllDocuments(await Deno.readTextFile(new URL(file, root))).map((d) => d.toJS());
    for (const deployment of docs.filter((d) => d?.kind === "Deployment")) {
      const pod = deployment.spec.template.spec;
      assert.equal(pod.securityContext?.runAsNonRoot, true, `${file}: runAsNonRoot`);
      for (const c of pod.containers) {
        const where = `${file} container ${c.name}`;
        assert.equal(c.securityContext?.readOnlyRootFilesystem, true, `${where}: read-only root`);
        assert.equal(c.securityContext?.allowPrivilegeEscalation, false, `${where}: no privilege escalation`);
        assert.deepEqual(c.securityContext?.capabilities?.drop, ["ALL"], `${where}: no capabilities`);
        const mounts: string[] = (c.volumeMounts ?? []).map((m: { mountPath: string }) => m.mountPath);
        for (const mount of mounts) assert.ok(under(mount, allowWrite) || mount.startsWith("/tmp/"), mount);
        // Every directory its args make it write: allowed to the binary and a writable volume on the read-only root.
        for (const arg of c.args ?? []) {
          const dir = /^--cert-dir=(.+)$/.exec(arg)?.[1];
          if (!dir) continue;
          assert.ok(under(dir, allowWrite), `${where}: ${arg} is outside --allow-write=${allowWrite}`);
          assert.ok(under(dir, mounts), `${where}: ${arg} is not on a mounted volume (the root is read-only)`);
        }
      }
    }
  }
});
