// A write's answer must not reach a client before the watch event the write caused: kube-controller-manager's
// stale-read guard (`read version: N is not as new as written version: M`) retries every sync that reads its informer
// before the event of its own last write arrived. Measured with the real kube-controller-manager (testing/README.md).
import assert from "node:assert/strict";
import { startFakeApiServer } from "../testing/mod.ts";
import { call } from "../testing/test_http.ts";

Deno.test("watch: a write is answered after the watch frame it caused was handed to the watch's connection", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  const cm = "/api/v1/namespaces/default/configmaps";
  const created = await call(s.url, "POST", cm, { metadata: { name: "order" }, data: { i: "0" } });
  const res = await fetch(`${s.url}${cm}?watch=true&resourceVersion=${created.body.metadata.resourceVersion}`);
  const seen = new Set<string>();
  const reading = (async () => {
    let buf = "";
    for await (const chunk of res.body!.pipeThrough(new TextDecoderStream())) {
      buf += chunk;
      for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
        seen.add(JSON.parse(buf.slice(0, i)).object.metadata.resourceVersion);
        buf = buf.slice(i + 1);
      }
    }
    // stop() below cuts the stream: handled from the start, or its error lands before the finally attaches a handler
    // and Deno fails the file with an unhandled rejection.
  })().catch(() => {});
  try {
    const writes = 100;
    let answeredFirst = 0;
    for (let i = 1; i <= writes; i++) {
      const patched = await call(s.url, "PATCH", `${cm}/order`, { data: { i: String(i) } }, {
        "content-type": "application/merge-patch+json",
      });
      assert.equal(patched.status, 200);
      if (!seen.has(patched.body.metadata.resourceVersion)) answeredFirst++;
    }
    // Before the fix nearly every answer came first (the frame waited for the next macrotask's flush).
    assert.ok(answeredFirst <= writes / 10, `${answeredFirst} of ${writes} writes were answered before their event`);
  } finally {
    await s.stop();
    await reading;
  }
});
