// `kubeop dev --data-dir` keeps every object, Secrets included: the directory is owner-only (0700) and its files 0600,
// like the kubeconfig it writes (issue 27).
import assert from "node:assert/strict";
import { startFakeApiServer } from "../testing/mod.ts";

Deno.test("--data-dir: the directory is 0700, objects.log and snapshot.json are 0600", async () => {
  const root = await Deno.makeTempDir({ prefix: "fake-data-dir-" });
  const dir = `${root}/state`;
  try {
    const server = await startFakeApiServer({ dataDir: dir });
    const mode = async (path: string) => (await Deno.stat(path)).mode! & 0o777;
    assert.equal(await mode(dir), 0o700, "data dir");
    assert.equal(await mode(`${dir}/objects.log`), 0o600, "objects.log while running");
    await server.stop();
    assert.equal(await mode(`${dir}/snapshot.json`), 0o600, "snapshot.json");
    assert.equal(await mode(`${dir}/objects.log`), 0o600, "objects.log after stop");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
