// Delegated authentication and authorization of the farm server over real HTTPS with front-proxy client certs.
import assert from "node:assert/strict";
import { VirtualClock } from "../runtime/clock.ts";
import { type CallAs, startFarmFixture } from "./support/farm_fixture.ts";
import { MemoryFarmCluster } from "../apiservice/memory_cluster.ts";
import { createCA } from "../runtime/http/pki.ts";

const DOLLY = "/apis/farm.example.com/v1alpha/namespaces/default/llamas/dolly";

Deno.test("no credentials: system:anonymous, authorized by SubjectAccessReview (403 with kube's wording)", async () => {
  const fx = await startFarmFixture();
  try {
    const res = await fx.call(DOLLY, { as: { cert: "none" } });
    assert.equal(res.status, 403);
    const status = await res.json();
    assert.equal(status.kind, "Status");
    assert.equal(status.reason, "Forbidden");
    assert.match(
      status.message,
      /^llamas\.farm\.example\.com "dolly" is forbidden: User "system:anonymous" cannot get resource "llamas" in API group "farm\.example\.com" in the namespace "default"/,
    );
    assert.deepEqual(fx.cluster.reviews.at(-1)!.user, {
      username: "system:anonymous",
      groups: ["system:unauthenticated"],
    });
    const discovery = await fx.call("/apis", { as: { cert: "none" } });
    assert.equal(discovery.status, 403, "system:discovery is bound to system:authenticated only");
    assert.match((await discovery.json()).message, /^forbidden: User "system:anonymous" cannot get path "\/apis"/);
    const version = await fx.call("/version", { as: { cert: "none" } });
    assert.equal(version.status, 200, "system:public-info-viewer lets anonymous callers read /version");
    await version.body?.cancel();
    const reviews = fx.cluster.reviews.length;
    for (const path of ["/readyz", "/livez", "/healthz"]) {
      const health = await fx.call(path, { as: { cert: "none" } });
      assert.equal(health.status, 200, path);
      await health.body?.cancel();
    }
    assert.equal(fx.cluster.reviews.length, reviews, "health paths are always allowed, without a review");
    // Counted as kube counts them: authenticated (anonymous is a success), then denied by the authorizer.
    const text = await (await fx.call("/metrics")).text();
    assert.match(text, /^authentication_attempts\{result="success"\} [6-9]$/m, text);
    assert.match(
      text,
      /^apiserver_authorization_decisions_total\{type="Webhook",name="webhook",decision="denied"\} 2$/m,
    );
  } finally {
    await fx.close();
  }
});

Deno.test("credentials that do not hold get kube's 401 Status on every path, health included, and are counted", async () => {
  const fx = await startFarmFixture();
  try {
    const cases: Array<[string, CallAs]> = [
      ["untrusted certificate", { cert: "rogue" }],
      ["front-proxy CA, CN not allowed", { cert: "wrong-cn" }],
      ["bad bearer token", { cert: "none", headers: { authorization: "Bearer not-a-token" } }],
    ];
    for (const [what, as] of cases) {
      for (const path of [DOLLY, "/readyz"]) {
        const res = await fx.call(path, { as });
        assert.equal(res.status, 401, `${what} ${path}`);
        assert.deepEqual(await res.json(), {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message: "Unauthorized",
          reason: "Unauthorized",
          code: 401,
        });
      }
    }
    assert.equal(fx.cluster.reviews.length, 0, "no SubjectAccessReview for refused credentials");
    const metrics = await fx.call("/metrics");
    assert.equal(metrics.status, 200);
    const text = await metrics.text();
    assert.match(text, /^authentication_attempts\{result="error"\} 6$/m, text);
  } finally {
    await fx.close();
  }
});

Deno.test("anonymous auth off: no credentials get 401, counted as failure", async () => {
  const fx = await startFarmFixture({ anonymousAuth: false });
  try {
    const res = await fx.call(DOLLY, { as: { cert: "none" } });
    assert.equal(res.status, 401);
    assert.equal((await res.json()).message, "Unauthorized");
    const text = await (await fx.call("/metrics")).text();
    assert.match(text, /^authentication_attempts\{result="failure"\} 1$/m, text);
  } finally {
    await fx.close();
  }
});

Deno.test("forged X-Remote-User without a verified client cert is ignored", async () => {
  const fx = await startFarmFixture();
  try {
    const anonymous = await fx.call(DOLLY, { as: { cert: "none", user: "system:admin", groups: ["system:masters"] } });
    assert.equal(anonymous.status, 403, "no certificate: the headers are ignored, the caller is anonymous");
    await anonymous.body?.cancel();
    assert.ok(fx.cluster.reviews.every((r) => r.user.username === "system:anonymous"));
    for (const cert of ["rogue", "wrong-cn"] as const) {
      const res = await fx.call(DOLLY, { as: { cert, user: "system:admin", groups: ["system:masters"] } });
      assert.equal(res.status, 401, cert);
      await res.body?.cancel();
    }
  } finally {
    await fx.close();
  }
});

Deno.test("front proxy with a user: SAR allowed → 200 with the request's attributes", async () => {
  const fx = await startFarmFixture({ authorize: (user) => user.username === "alice" });
  try {
    const res = await fx.call(DOLLY, {
      as: { user: "alice", groups: ["devs", "system:authenticated"], headers: { "X-Remote-Extra-Scopes": "farm" } },
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
    const review = fx.cluster.reviews.at(-1)!;
    assert.equal(review.user.username, "alice");
    assert.deepEqual(review.user.groups, ["devs", "system:authenticated"]);
    assert.deepEqual(review.user.extra, { scopes: ["farm"] });
    assert.deepEqual(review.attrs, {
      verb: "get",
      group: "farm.example.com",
      version: "v1alpha",
      resource: "llamas",
      subresource: undefined,
      namespace: "default",
      name: "dolly",
    });
    const watch = await fx.call("/apis/farm.example.com/v1alpha/llamas?watch=true&timeoutSeconds=1");
    assert.equal(watch.status, 200);
    await watch.body?.cancel();
    assert.equal(fx.cluster.reviews.at(-1)!.attrs.verb, "watch");
    assert.equal(fx.cluster.reviews.at(-1)!.attrs.namespace, undefined);
  } finally {
    await fx.close();
  }
});

Deno.test("front proxy with a user: SAR denied → 403 Forbidden Status", async () => {
  const fx = await startFarmFixture({ authorize: (_user, attrs) => attrs.verb === "get" || attrs.verb === "list" });
  try {
    const res = await fx.call("/apis/farm.example.com/v1alpha/namespaces/default/llamas", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ metadata: { name: "x" }, spec: { weight: 1, height: 1 } }),
      as: { user: "bob" },
    });
    assert.equal(res.status, 403);
    const status = await res.json();
    assert.equal(status.reason, "Forbidden");
    assert.match(status.message, /User "bob" cannot create resource "llamas" in API group "farm.example.com"/);
    const list = await (await fx.call("/apis/farm.example.com/v1alpha/namespaces/default/llamas", {
      as: { user: "bob" },
    })).json();
    assert.equal(list.items.length, 1, "the denied create did not happen");
  } finally {
    await fx.close();
  }
});

Deno.test("SAR answers are cached 10 s on the injected clock", async () => {
  const clock = new VirtualClock();
  const fx = await startFarmFixture({ clock });
  try {
    for (let i = 0; i < 3; i++) {
      const res = await fx.call(DOLLY);
      assert.equal(res.status, 200);
      await res.body?.cancel();
    }
    assert.equal(fx.cluster.reviews.length, 1);
    fx.cluster.authorize = () => false;
    await clock.advance(10_001);
    const denied = await fx.call(DOLLY);
    assert.equal(denied.status, 403);
    await denied.body?.cancel();
    assert.equal(fx.cluster.reviews.length, 2);
  } finally {
    await fx.close();
  }
});

Deno.test("the front proxy without a user may read discovery, not resources", async () => {
  const fx = await startFarmFixture();
  try {
    const headers = new Headers();
    const discovery = await fx.call("/apis/farm.example.com/v1alpha", { as: { cert: "proxy", user: "" }, headers });
    assert.equal(discovery.status, 200);
    await discovery.body?.cancel();
    const resource = await fx.call(DOLLY, { as: { cert: "proxy", user: "" } });
    assert.equal(resource.status, 401);
    await resource.body?.cancel();
  } finally {
    await fx.close();
  }
});

Deno.test("bearer tokens are checked with TokenReview", async () => {
  const fx = await startFarmFixture();
  fx.cluster.tokens.set("good-token", { username: "carol", groups: ["system:authenticated"] });
  try {
    const ok = await fx.call(DOLLY, { as: { cert: "none", headers: { authorization: "Bearer good-token" } } });
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
    assert.equal(fx.cluster.reviews.at(-1)!.user.username, "carol");
    const bad = await fx.call(DOLLY, { as: { cert: "none", headers: { authorization: "Bearer nope" } } });
    assert.equal(bad.status, 401);
    await bad.body?.cancel();
  } finally {
    await fx.close();
  }
});

Deno.test("auth none serves everyone (local development)", async () => {
  const fx = await startFarmFixture({ auth: "none" });
  try {
    const res = await fx.call(DOLLY, { as: { cert: "none" } });
    assert.equal(res.status, 200);
    await res.body?.cancel();
  } finally {
    await fx.close();
  }
});

Deno.test("front-proxy options come from extension-apiserver-authentication and follow a rotated CA", async () => {
  const clock = new VirtualClock();
  const oldCA = await createCA({ commonName: "old-front-proxy-ca" });
  const newCA = await createCA({ commonName: "new-front-proxy-ca" });
  const cluster = new MemoryFarmCluster();
  const authData = (ca: string) => ({
    "requestheader-client-ca-file": ca,
    "requestheader-allowed-names": '["front-proxy-client"]',
    "requestheader-username-headers": '["X-Remote-User"]',
    "requestheader-group-headers": '["X-Remote-Group"]',
    "requestheader-extra-headers-prefix": '["X-Remote-Extra-"]',
  });
  await cluster.createConfigMap({
    metadata: { name: "extension-apiserver-authentication", namespace: "kube-system" },
    data: authData(oldCA.certPEM),
  });
  const fx = await startFarmFixture({ cluster, clock, requestHeader: undefined, frontProxyCA: oldCA });
  const newProxy = await newCA.issue({ commonName: "front-proxy-client", usage: "client" });
  const client = Deno.createHttpClient({ caCerts: [fx.farm.caPEM], cert: newProxy.certPEM, key: newProxy.keyPEM });
  const asNewProxy = () =>
    fetch(`${fx.farm.url}${DOLLY}`, { client, headers: { "X-Remote-User": "alice" } }).then(async (r) => {
      await r.body?.cancel();
      return r.status;
    });
  try {
    const viaOld = await fx.call(DOLLY);
    assert.equal(viaOld.status, 200, "the CA from the ConfigMap is trusted");
    await viaOld.body?.cancel();
    assert.equal(await asNewProxy(), 401);

    const cm = await cluster.getConfigMap("kube-system", "extension-apiserver-authentication");
    await cluster.updateConfigMap({ ...cm!, data: authData(newCA.certPEM) });
    await clock.advance(60_000);
    const deadline = Date.now() + 10_000;
    while (await asNewProxy() !== 200) {
      if (Date.now() > deadline) throw new Error("the rotated front-proxy CA was never trusted");
      await clock.advance(60_000);
    }
    // New connections only: an established TLS session keeps the identity it was verified with.
    const oldProxy = await oldCA.issue({ commonName: "front-proxy-client", usage: "client" });
    const oldClient = Deno.createHttpClient({ caCerts: [fx.farm.caPEM], cert: oldProxy.certPEM, key: oldProxy.keyPEM });
    try {
      const stale = await fetch(`${fx.farm.url}${DOLLY}`, { client: oldClient, headers: { "X-Remote-User": "alice" } });
      assert.equal(stale.status, 401, "the old CA is no longer trusted");
      await stale.body?.cancel();
    } finally {
      oldClient.close();
    }
  } finally {
    client.close();
    await fx.close();
  }
});

Deno.test("a certificate from the cluster's client CA (client-ca-file) is its CN and O's; system:masters skips the review", async () => {
  const clientCA = await createCA({ commonName: "cluster-client-ca" });
  const fx = await startFarmFixture({ clientCAPEM: clientCA.certPEM });
  const [dev, admin] = await Promise.all([
    clientCA.issue({ commonName: "dana", organizations: ["devs"], usage: "client" }),
    clientCA.issue({ commonName: "root", organizations: ["system:masters"], usage: "client" }),
  ]);
  const get = async (pair: { certPEM: string; keyPEM: string }) => {
    const client = Deno.createHttpClient({ caCerts: [fx.farm.caPEM], cert: pair.certPEM, key: pair.keyPEM });
    try {
      // X-Remote-User is the front proxy's to set: from any other certificate it is ignored.
      const res = await fetch(`${fx.farm.url}${DOLLY}`, { client, headers: { "X-Remote-User": "system:admin" } });
      await res.body?.cancel();
      return res.status;
    } finally {
      client.close();
    }
  };
  try {
    assert.equal(await get(dev), 200);
    assert.deepEqual(fx.cluster.reviews.at(-1)!.user, { username: "dana", groups: ["devs", "system:authenticated"] });
    const reviews = fx.cluster.reviews.length;
    fx.cluster.authorize = () => false;
    assert.equal(await get(admin), 200);
    assert.equal(fx.cluster.reviews.length, reviews, "system:masters is always allowed (k8s.io/apiserver's default)");
  } finally {
    await fx.close();
  }
});
