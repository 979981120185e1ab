import assert from "node:assert/strict";
import { KubeClient } from "./client.ts";
import { VirtualClock } from "../clock.ts";
import { CoreTypes } from "../types.ts";
import { eventually } from "../../testing/eventually.ts";

async function withCountingServer(fn: (url: string, seen: () => number) => Promise<void>): Promise<void> {
  let seen = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    seen++;
    return new Response(JSON.stringify({ metadata: { name: "x" } }), {
      headers: { "content-type": "application/json" },
    });
  });
  try {
    await fn(`http://127.0.0.1:${server.addr.port}`, () => seen);
  } finally {
    await server.shutdown();
  }
}

Deno.test("client: qps/burst is a token bucket over every request — burst at once, then one per 1/qps s", async () => {
  await withCountingServer(async (url, seen) => {
    const clock = new VirtualClock(0);
    const client = new KubeClient({ config: { server: url }, clock, qps: 10, burst: 2 });
    try {
      const calls = [0, 1, 2, 3].map((i) => client.get(CoreTypes.ConfigMap, `c${i}`, { namespace: "default" }));
      await eventually("the burst to arrive and two requests to wait", () => seen() === 2 && clock.pendingTimers === 2);
      await clock.advance(99);
      assert.equal(seen(), 2, "no token before 100 ms");
      await clock.advance(1);
      await eventually("the third request", () => seen() === 3);
      assert.equal(clock.pendingTimers, 1, "the fourth still waits");
      await clock.advance(100);
      await eventually("the fourth request", () => seen() === 4);
      await Promise.all(calls);
    } finally {
      client.close();
    }
  });
});

Deno.test("client: without qps there is no client-side limit (controller-runtime's default)", async () => {
  await withCountingServer(async (url, seen) => {
    const clock = new VirtualClock(0);
    const client = new KubeClient({ config: { server: url }, clock });
    try {
      await Promise.all([0, 1, 2, 3, 4].map((i) => client.get(CoreTypes.ConfigMap, `c${i}`, { namespace: "default" })));
      assert.equal(seen(), 5);
      assert.equal(clock.pendingTimers, 0, "nothing waited");
    } finally {
      client.close();
    }
  });
});

Deno.test("client: a fenced view draws from the same bucket as its client", async () => {
  await withCountingServer(async (url, seen) => {
    const clock = new VirtualClock(0);
    const client = new KubeClient({ config: { server: url }, clock, qps: 10, burst: 1 });
    const fenced = client.withWriteFence({ check: () => {}, signal: new AbortController().signal });
    try {
      const calls = [
        client.get(CoreTypes.ConfigMap, "a", { namespace: "default" }),
        fenced.get(CoreTypes.ConfigMap, "b", { namespace: "default" }),
      ];
      await eventually("one request through and one waiting", () => seen() === 1 && clock.pendingTimers === 1);
      await clock.advance(100);
      await eventually("the second request", () => seen() === 2);
      await Promise.all(calls);
    } finally {
      client.close();
    }
  });
});
