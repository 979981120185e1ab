/** The recorder through a real KubeClient over HTTP: paths, verbs, content types and bodies as the server sees them. */
import assert from "node:assert/strict";
import { KubeClient } from "../client/client.ts";
import { VirtualClock } from "../clock.ts";
import { KubeEventRecorder } from "./events.ts";

interface Seen {
  method: string;
  path: string;
  contentType: string | null;
  body: Record<string, unknown>;
}

Deno.test("Events are POSTed to events.k8s.io/v1 in the object's namespace and repeats PATCHed as a series", async () => {
  const seen: Seen[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const body = await req.json();
    seen.push({
      method: req.method,
      path: new URL(req.url).pathname,
      contentType: req.headers.get("content-type"),
      body,
    });
    return new Response(JSON.stringify(body), { status: req.method === "POST" ? 201 : 200 });
  });
  const clock = new VirtualClock(Date.UTC(2026, 10, 23, 9, 0, 0));
  const client = new KubeClient({ config: { server: `http://127.0.0.1:${server.addr.port}` }, clock });
  try {
    const recorder = new KubeEventRecorder({
      sink: client,
      clock,
      reportingController: "kubeop",
      reportingInstance: "r0",
    });
    const secret = {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "db", namespace: "prod", uid: "u1", resourceVersion: "7" },
      data: { password: "c2VjcmV0" },
    };
    // The same event twice, 2 s apart: the second becomes a series patch.
    const copied = {
      type: "Normal",
      reason: "Copied",
      action: "CreateSecret",
      note: "copied to 3 namespaces",
    } as const;
    recorder.event(secret, copied);
    await recorder.flush();
    await clock.advance(2000);
    recorder.event(secret, copied);
    await recorder.flush();
    assert.equal(seen.length, 2);
    const [create, patch] = seen;
    assert.equal(create.method, "POST");
    assert.equal(create.path, "/apis/events.k8s.io/v1/namespaces/prod/events");
    assert.equal(create.body.kind, "Event");
    assert.equal(create.body.apiVersion, "events.k8s.io/v1");
    assert.equal(create.body.eventTime, "2026-11-23T09:00:00.000000Z");
    assert.ok(!JSON.stringify(create.body).includes("c2VjcmV0"), "the regarding Secret's data is not copied");
    const name = (create.body.metadata as { name: string }).name;
    assert.equal(patch.method, "PATCH");
    assert.equal(patch.path, `/apis/events.k8s.io/v1/namespaces/prod/events/${name}`);
    assert.match(patch.contentType ?? "", /merge-patch\+json/);
    assert.deepEqual(patch.body, { series: { count: 2, lastObservedTime: "2026-11-23T09:00:02.000000Z" } });
  } finally {
    client.close();
    await server.shutdown();
  }
});
