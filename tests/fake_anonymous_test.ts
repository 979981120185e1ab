// Issue 27, first step: the fake API server authenticates as kube-apiserver does. A request without credentials is
// system:anonymous and RBAC lets it read only /version and the health paths; bad credentials are 401 with kube's body.
import assert from "node:assert/strict";
import { startDev } from "../cli/dev.ts";
import { startFakeApiServer } from "../testing/mod.ts";
import { KubeClient } from "../runtime/client/client.ts";
import { loadKubeconfigFile } from "../runtime/client/kubeconfig.ts";
import { CoreTypes } from "../runtime/types.ts";

const UNAUTHORIZED = {
  kind: "Status",
  apiVersion: "v1",
  metadata: {},
  status: "Failure",
  message: "Unauthorized",
  reason: "Unauthorized",
  code: 401,
};

async function answer(res: Response): Promise<{ status: number; body: Record<string, unknown> | string }> {
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) };
  } catch {
    return { status: res.status, body: text };
  }
}

Deno.test("anonymous over HTTPS: DELETE of a namespace is 403 with kube's wording and the namespace stays", async () => {
  const s = await startFakeApiServer({ tls: true });
  const anonymous = Deno.createHttpClient({ caCerts: [s.caPEM!] });
  try {
    const del = await answer(
      await fetch(`${s.url}/api/v1/namespaces/default`, { method: "DELETE", client: anonymous }),
    );
    assert.equal(del.status, 403);
    assert.deepEqual(del.body, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      // kube's RequestInfo takes a namespace's own name as the request's namespace: "in the namespace", not "cluster".
      message:
        `namespaces "default" is forbidden: User "system:anonymous" cannot delete resource "namespaces" in API group "" in the namespace "default"`,
      reason: "Forbidden",
      details: { name: "default", kind: "namespaces" },
      code: 403,
    });
    const ns = s.store.get({ group: "", version: "v1", plural: "namespaces" }, "default");
    assert.equal(ns.metadata.deletionTimestamp, undefined);

    const list = await answer(await fetch(`${s.url}/api/v1/namespaces`, { client: anonymous }));
    assert.equal(list.status, 403);
    assert.equal(
      (list.body as { message: string }).message,
      `namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope`,
    );
  } finally {
    anonymous.close();
    await s.stop();
  }
});

Deno.test("anonymous: /version and the health paths answer; discovery needs authentication, as on kube v1.37", async () => {
  const s = await startFakeApiServer({ tls: true });
  const anonymous = Deno.createHttpClient({ caCerts: [s.caPEM!] });
  try {
    const version = await answer(await fetch(`${s.url}/version`, { client: anonymous }));
    assert.equal(version.status, 200);
    assert.equal(typeof (version.body as { gitVersion: string }).gitVersion, "string");
    for (const path of ["/healthz", "/livez", "/readyz"]) {
      assert.deepEqual(await answer(await fetch(`${s.url}${path}`, { client: anonymous })), {
        status: 200,
        body: "ok",
      });
    }
    // system:discovery is bound to system:authenticated only (kube ≥ 1.14's bootstrap policy).
    for (const path of ["/apis", "/api"]) {
      const res = await answer(await fetch(`${s.url}${path}`, { client: anonymous }));
      assert.equal(res.status, 403, path);
      assert.equal(
        (res.body as { message: string }).message,
        `forbidden: User "system:anonymous" cannot get path "${path}"`,
      );
    }
  } finally {
    anonymous.close();
    await s.stop();
  }
});

Deno.test("bad credentials are 401 with kube's body: unknown token, untrusted client certificate", async () => {
  const other = await startFakeApiServer({ tls: true });
  const stranger = other.clientCert!;
  const strangerCA = other.caPEM!;
  await other.stop();
  const s = await startFakeApiServer({ tls: true });
  const plain = Deno.createHttpClient({ caCerts: [s.caPEM!] });
  const untrusted = Deno.createHttpClient({
    caCerts: [s.caPEM!, strangerCA],
    ...{ cert: stranger.certPEM, key: stranger.keyPEM },
  });
  try {
    for (const authorization of ["Bearer not-a-token", "Bearer eyJhbGciOiJSUzI1NiJ9.e30.c2ln"]) {
      const res = await answer(await fetch(`${s.url}/version`, { headers: { authorization }, client: plain }));
      assert.deepEqual(res, { status: 401, body: UNAUTHORIZED });
    }
    const res = await answer(await fetch(`${s.url}/version`, { client: untrusted }));
    assert.deepEqual(res, { status: 401, body: UNAUTHORIZED });
    // The admin token and the kubeconfig's client certificate still act as the admin.
    const admin = await fetch(`${s.url}/api/v1/namespaces`, {
      headers: { authorization: `Bearer ${s.adminToken}` },
      client: plain,
    });
    assert.equal(admin.status, 200);
    await admin.body?.cancel();
  } finally {
    plain.close();
    untrusted.close();
    await s.stop();
  }
});

Deno.test("a request that does not authenticate is answered 401 before its body is read", async () => {
  const s = await startFakeApiServer();
  try {
    // A body that never ends: the 401 can only come if the server answers from the headers.
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode('{"metadata":{"name":"never"'));
      },
    });
    const res = await fetch(`${s.url}/api/v1/namespaces`, {
      method: "POST",
      headers: { authorization: "Bearer wrong", "content-type": "application/json" },
      body,
    });
    assert.deepEqual(await answer(res), { status: 401, body: UNAUTHORIZED });
  } finally {
    await s.stop();
  }
});

Deno.test("anonymousAuth: false answers 401 to requests without credentials, /version and /healthz included", async () => {
  const s = await startFakeApiServer({ anonymousAuth: false });
  try {
    for (const path of ["/version", "/healthz", "/api/v1/namespaces"]) {
      assert.deepEqual(await answer(await fetch(`${s.url}${path}`)), { status: 401, body: UNAUTHORIZED }, path);
    }
  } finally {
    await s.stop();
  }
});

Deno.test("anonymousAdmin: true is the explicit old convenience; the default kubeconfig carries admin credentials", async () => {
  const convenient = await startFakeApiServer({ anonymousAdmin: true });
  const s = await startFakeApiServer();
  const dir = await Deno.makeTempDir();
  try {
    const res = await fetch(`${convenient.url}/api/v1/namespaces`);
    assert.equal(res.status, 200);
    await res.body?.cancel();
    // Plain HTTP: the kubeconfig carries the admin token, written 0600.
    await s.writeKubeconfig(`${dir}/kubeconfig`);
    assert.equal((await Deno.stat(`${dir}/kubeconfig`)).mode! & 0o777, 0o600);
    const client = new KubeClient({ config: await loadKubeconfigFile(`${dir}/kubeconfig`) });
    try {
      // An admin-only write (the namespace `default` itself may not be deleted: NamespaceLifecycle's 403).
      await client.create(CoreTypes.Namespace, { metadata: { name: "admin-made" } });
      await client.delete(CoreTypes.Namespace, "admin-made");
    } finally {
      client.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
    await convenient.stop();
    await s.stop();
  }
});

Deno.test({
  name: "kubeop dev: an anonymous DELETE of a namespace is 403 and the namespace stays; the kubeconfig is the admin",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "kubeop-dev-anon-" });
    const dev = await startDev({ kubeconfigOut: `${dir}/kubeconfig`, kubelet: false });
    const anonymous = Deno.createHttpClient({ caCerts: [dev.server.caPEM!] });
    const admin = new KubeClient({ config: await loadKubeconfigFile(dev.kubeconfigPath) });
    try {
      assert.equal((await Deno.stat(dev.kubeconfigPath)).mode! & 0o777, 0o600);
      const del = await fetch(`${dev.server.url}/api/v1/namespaces/default`, { method: "DELETE", client: anonymous });
      assert.equal(del.status, 403);
      assert.match((await del.json()).message, /User "system:anonymous" cannot delete resource "namespaces"/);
      const ns = await admin.get(CoreTypes.Namespace, "default");
      assert.equal(ns.metadata.deletionTimestamp, undefined);
    } finally {
      admin.close();
      anonymous.close();
      await dev.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "kubeop dev: the farm API refuses anonymous callers on its own port and through the fake API server",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "kubeop-dev-farm-anon-" });
    const dev = await startDev({ kubeconfigOut: `${dir}/kubeconfig`, kubelet: false });
    const llamas = "/apis/farm.example.com/v1alpha/namespaces/default/llamas";
    const farmCA = await Deno.readTextFile(`${dir}/farm-certs/ca.crt`);
    const viaFake = Deno.createHttpClient({ caCerts: [dev.server.caPEM!] });
    const direct = Deno.createHttpClient({ caCerts: [farmCA] });
    const admin = dev.server.clientCert!;
    const directAdmin = Deno.createHttpClient({ caCerts: [farmCA], cert: admin.certPEM, key: admin.keyPEM });
    try {
      assert.ok(dev.farmUrl, "kubeop dev reports the farm server's own address");
      for (const [where, base, client] of [["fake", dev.server.url, viaFake], ["farm", dev.farmUrl, direct]] as const) {
        const get = await fetch(`${base}${llamas}/dolly`, { client });
        assert.equal(get.status, 403, where);
        assert.match(
          (await get.json()).message,
          /^llamas\.farm\.example\.com "dolly" is forbidden: User "system:anonymous" cannot get resource "llamas" in API group "farm\.example\.com" in the namespace "default"/,
          where,
        );
        const del = await fetch(`${base}${llamas}/dolly`, { method: "DELETE", client });
        assert.equal(del.status, 403, where);
        await del.body?.cancel();
        const bad = await fetch(`${base}${llamas}`, { client, headers: { authorization: "Bearer not-a-token" } });
        assert.equal(bad.status, 401, where);
        assert.equal((await bad.json()).message, "Unauthorized", where);
      }
      const health = await fetch(`${dev.farmUrl}/readyz`, { client: direct });
      assert.equal(health.status, 200);
      await health.body?.cancel();
      // The kubeconfig's admin certificate (the dev server's client CA, group system:masters) is let in.
      const asAdmin = await fetch(`${dev.farmUrl}${llamas}/dolly`, { client: directAdmin });
      assert.equal(asAdmin.status, 200);
      assert.equal((await asAdmin.json()).metadata.name, "dolly", "the anonymous DELETEs did nothing");
    } finally {
      viaFake.close();
      direct.close();
      directAdmin.close();
      await dev.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
