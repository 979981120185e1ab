import assert from "node:assert/strict";
import { startFakeApiServer } from "../testing/mod.ts";
import { createCA } from "../runtime/http/pki.ts";
import { call } from "../testing/test_http.ts";
import { eventually } from "../testing/eventually.ts";

async function availability(url: string, name: string, status: string): Promise<Record<string, string> | undefined> {
  const res = await call(url, "GET", `/apis/apiregistration.k8s.io/v1/apiservices/${name}`);
  const cond = (res.body.status?.conditions ?? []).find((c: { type: string }) => c.type === "Available");
  return cond?.status === status ? cond : undefined;
}

/**
 * An HTTPS server on 127.0.0.1 (its own CA) standing in for an aggregated API's backend pod. Its certificate names
 * only the Service's DNS name, `farm.default.svc`, as a cluster's would: kube's aggregator checks that name whatever
 * address it dials.
 */
async function serveTlsBackend(handler: Deno.ServeHandler) {
  const ca = await createCA({ commonName: "farm-ca" });
  const serving = await ca.issue({ commonName: "farm", hosts: ["farm.default.svc"], usage: "server" });
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    cert: serving.certPEM,
    key: serving.keyPEM,
    onListen: () => {},
  }, handler);
  return { pki: { caPEM: ca.certPEM }, server };
}

/**
 * The same backend serving a certificate made the common way by the openssl binary (`openssl req -x509 ... -addext
 * subjectAltName=DNS:farm.default.svc`): self-signed, so it is its own CA (CA:TRUE) and its own caBundle. Go's
 * crypto/tls accepts it; Deno's fetch (rustls) refuses it as CaUsedAsEndEntity.
 */
async function serveOpensslBackend(handler: Deno.ServeHandler) {
  const dir = await Deno.makeTempDir({ prefix: "kubeop-openssl-" });
  try {
    const args = ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=farm.default.svc"];
    args.push("-addext", "subjectAltName=DNS:farm.default.svc", "-keyout", `${dir}/tls.key`, "-out", `${dir}/tls.crt`);
    const out = await new Deno.Command("openssl", { args, stdout: "piped", stderr: "piped" }).output();
    if (!out.success) throw new Error(`openssl req -x509: ${new TextDecoder().decode(out.stderr)}`);
    const cert = await Deno.readTextFile(`${dir}/tls.crt`);
    const key = await Deno.readTextFile(`${dir}/tls.key`);
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, cert, key, onListen: () => {} }, handler);
    return { caPEM: cert, server };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Creates Service `default/farm` (port 443 "https") with Endpoints pointing at `backendPort` on 127.0.0.1. */
async function exposeAsFarmService(url: string, backendPort: number): Promise<void> {
  await call(url, "POST", "/api/v1/namespaces/default/services", {
    metadata: { name: "farm" },
    spec: { ports: [{ name: "https", port: 443 }] },
  });
  await call(url, "POST", "/api/v1/namespaces/default/endpoints", {
    metadata: { name: "farm" },
    subsets: [{ addresses: [{ ip: "127.0.0.1" }], ports: [{ name: "https", port: backendPort }] }],
  });
}

Deno.test("registerAggregatedApi: an in-process handler serves its group-version, listed in /apis", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  try {
    s.registerAggregatedApi(
      "farm.example.com",
      "v1alpha",
      (req) =>
        Promise.resolve(
          Response.json({
            kind: "APIResourceList",
            groupVersion: "farm.example.com/v1alpha",
            path: new URL(req.url).pathname,
          }),
        ),
    );
    const res = await call(s.url, "GET", "/apis/farm.example.com/v1alpha");
    assert.equal(res.body.path, "/apis/farm.example.com/v1alpha");
    const groups = await call(s.url, "GET", "/apis");
    assert.ok(groups.body.groups.some((g: { name: string }) => g.name === "farm.example.com"));
    const group = await call(s.url, "GET", "/apis/farm.example.com");
    assert.equal(group.body.preferredVersion.version, "v1alpha");
    const index = await call(s.url, "GET", "/openapi/v3");
    assert.ok(index.body.paths["apis/farm.example.com/v1alpha"]);
  } finally {
    await s.stop();
  }
});

Deno.test("an APIService with spec.service proxies to the Service's endpoint over TLS with remote-user headers", async () => {
  const seen: Array<string | null> = [];
  const { pki: backendPki, server: backend } = await serveTlsBackend((req) => {
    seen.push(req.headers.get("x-remote-user"));
    return Response.json({ kind: "LlamaList", apiVersion: "farm.example.com/v1alpha", items: [] });
  });
  const s = await startFakeApiServer({ anonymousAdmin: true });
  try {
    await exposeAsFarmService(s.url, backend.addr.port);
    const created = await call(s.url, "POST", "/apis/apiregistration.k8s.io/v1/apiservices", {
      metadata: { name: "v1alpha.farm.example.com" },
      spec: {
        group: "farm.example.com",
        version: "v1alpha",
        service: { namespace: "default", name: "farm", port: 443 },
        caBundle: btoa(backendPki.caPEM),
        groupPriorityMinimum: 1000,
        versionPriority: 15,
      },
    });
    assert.equal(created.status, 201);
    await eventually("APIService Available", () => availability(s.url, "v1alpha.farm.example.com", "True"));
    const list = await call(s.url, "GET", "/apis/farm.example.com/v1alpha/namespaces/default/llamas");
    assert.equal(list.status, 200);
    assert.equal(list.body.kind, "LlamaList");
    assert.ok(seen.length >= 2, "discovery check and the list reached the backend");
    assert.ok(seen.every((u) => u === "kubeop-dev"));
    await call(s.url, "DELETE", "/apis/apiregistration.k8s.io/v1/apiservices/v1alpha.farm.example.com");
    assert.equal((await call(s.url, "GET", "/apis/farm.example.com/v1alpha/namespaces/default/llamas")).status, 404);
  } finally {
    await s.stop();
    await backend.shutdown();
  }
});

Deno.test("APIService: insecureSkipTLSVerify proxies to an unverified backend; Available follows the discovery check", async () => {
  let answer = 200;
  const { pki: backendPki, server: backend } = await serveTlsBackend((req) => {
    const path = new URL(req.url).pathname;
    if (answer !== 200) return new Response("down", { status: answer });
    return Response.json({ kind: "APIResourceList", groupVersion: "farm.example.com/v1alpha", path, resources: [] });
  });
  const s = await startFakeApiServer({ anonymousAdmin: true });
  const name = "v1alpha.farm.example.com";
  try {
    const spec = {
      group: "farm.example.com",
      version: "v1alpha",
      service: { namespace: "default", name: "farm", port: 443 },
      insecureSkipTLSVerify: true,
      groupPriorityMinimum: 1000,
      versionPriority: 15,
    };
    const both = await call(s.url, "POST", "/apis/apiregistration.k8s.io/v1/apiservices", {
      metadata: { name },
      spec: { ...spec, caBundle: btoa(backendPki.caPEM) },
    });
    assert.equal(both.status, 422, "caBundle and insecureSkipTLSVerify together are refused");
    assert.equal(both.body.details.causes[0].field, "spec.insecureSkipTLSVerify");
    const created = await call(s.url, "POST", "/apis/apiregistration.k8s.io/v1/apiservices", {
      metadata: { name },
      spec,
    });
    assert.equal(created.status, 201);
    const missing = await eventually("ServiceNotFound", () => availability(s.url, name, "False"));
    assert.equal(missing.reason, "ServiceNotFound");
    await exposeAsFarmService(s.url, backend.addr.port);
    const up = await eventually("Available True", () => availability(s.url, name, "True"));
    assert.equal(up.reason, "Passed");
    const proxied = await call(s.url, "GET", "/apis/farm.example.com/v1alpha");
    assert.equal(proxied.status, 200);
    assert.equal(proxied.body.path, "/apis/farm.example.com/v1alpha");
    answer = 500;
    await call(
      s.url,
      "PATCH",
      `/apis/apiregistration.k8s.io/v1/apiservices/${name}`,
      { spec: { versionPriority: 16 } },
      {
        "content-type": "application/merge-patch+json",
      },
    );
    const down = await eventually("FailedDiscoveryCheck", () => availability(s.url, name, "False"));
    assert.equal(down.reason, "FailedDiscoveryCheck");
    assert.match(
      down.message,
      /failing or missing response from https:\/\/127\.0\.0\.1:\d+\/apis\/farm.example.com\/v1alpha/,
    );
  } finally {
    await s.stop();
    await backend.shutdown();
  }
});

Deno.test("APIService: a backend serving an openssl self-signed certificate (CA:TRUE, its own caBundle) is proxied to", async () => {
  const { caPEM, server: backend } = await serveOpensslBackend(() =>
    Response.json({ kind: "LlamaList", apiVersion: "farm.example.com/v1alpha", items: [] })
  );
  const s = await startFakeApiServer({ anonymousAdmin: true });
  const name = "v1alpha.farm.example.com";
  try {
    await exposeAsFarmService(s.url, backend.addr.port);
    const spec = { group: "farm.example.com", version: "v1alpha", groupPriorityMinimum: 1000, versionPriority: 15 };
    const created = await call(s.url, "POST", "/apis/apiregistration.k8s.io/v1/apiservices", {
      metadata: { name },
      spec: { ...spec, service: { namespace: "default", name: "farm", port: 443 }, caBundle: btoa(caPEM) },
    });
    assert.equal(created.status, 201);
    await eventually("APIService Available", () => availability(s.url, name, "True"), { timeoutMs: 20_000 });
    const list = await call(s.url, "GET", "/apis/farm.example.com/v1alpha/namespaces/default/llamas");
    assert.equal(list.status, 200);
    assert.equal(list.body.kind, "LlamaList");
  } finally {
    await s.stop();
    await backend.shutdown();
  }
});
