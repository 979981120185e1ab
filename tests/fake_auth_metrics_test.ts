// Issue 27: refused callers are counted, with kube-apiserver's metric names, on the fake API server's /metrics
// (authorized like any non-resource path: the admin reads it, an anonymous caller gets 403).
import assert from "node:assert/strict";
import { startFakeApiServer } from "../testing/mod.ts";

/** The value of `name{labels}` in a Prometheus text body (0 when the series is absent). */
function sample(body: string, series: string): number {
  const line = body.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

Deno.test("fake API server /metrics counts bad credentials, anonymous callers and RBAC denials as kube-apiserver does", async () => {
  const s = await startFakeApiServer({});
  const admin = { authorization: `Bearer ${s.adminToken}` };
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${s.url}${path}`, { headers });
    return { status: res.status, text: await res.text() };
  };
  try {
    assert.equal((await get("/api/v1/namespaces", { authorization: "Bearer not-a-token" })).status, 401);
    assert.equal((await get("/api/v1/namespaces", { authorization: "Bearer also-not-a-token" })).status, 401);
    assert.equal((await get("/api/v1/namespaces")).status, 403, "anonymous: authenticated, then denied by RBAC");
    assert.equal((await get("/metrics")).status, 403, "anonymous callers may not read /metrics");
    const metrics = await get("/metrics", admin);
    assert.equal(metrics.status, 200);
    assert.equal(sample(metrics.text, 'authentication_attempts{result="error"}'), 2);
    assert.ok(sample(metrics.text, 'authentication_attempts{result="success"}') >= 3);
    assert.ok(
      sample(metrics.text, 'apiserver_authorization_decisions_total{type="RBAC",name="rbac",decision="denied"}') >= 2,
    );
    assert.ok(
      sample(metrics.text, 'apiserver_authorization_decisions_total{type="RBAC",name="rbac",decision="allowed"}') >= 1,
    );
  } finally {
    await s.stop();
  }
});

Deno.test("fake API server with anonymousAuth false: no credentials is 401 and counted as a failure", async () => {
  const s = await startFakeApiServer({ anonymousAuth: false });
  try {
    const res = await fetch(`${s.url}/api/v1/namespaces`);
    await res.body?.cancel();
    assert.equal(res.status, 401);
    const metrics = await fetch(`${s.url}/metrics`, { headers: { authorization: `Bearer ${s.adminToken}` } });
    assert.equal(sample(await metrics.text(), 'authentication_attempts{result="failure"}'), 1);
  } finally {
    await s.stop();
  }
});
