import assert from "node:assert/strict";
import { startFakeApiServer } from "../testing/mod.ts";
import { call } from "../testing/test_http.ts";

Deno.test("TLS: HTTPS with the generated CA; kubeconfig carries CA and client certificate", async () => {
  const s = await startFakeApiServer({ tls: true });
  const anonymous = Deno.createHttpClient({ caCerts: [s.caPEM!] });
  const client = Deno.createHttpClient({ caCerts: [s.caPEM!], cert: s.clientCert!.certPEM, key: s.clientCert!.keyPEM });
  try {
    assert.match(s.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const denied = await fetch(`${s.url}/api/v1/namespaces/default`, { client: anonymous });
    assert.equal(denied.status, 403); // system:anonymous, not the admin
    await denied.body?.cancel();
    const res = await fetch(`${s.url}/api/v1/namespaces/default`, { client });
    assert.equal(res.status, 200);
    assert.equal((await res.json()).metadata.name, "default");
    assert.match(s.kubeconfig, /certificate-authority-data/);
    assert.match(s.kubeconfig, /client-certificate-data/);
  } finally {
    anonymous.close();
    client.close();
    await s.stop();
  }
});

Deno.test("mTLS: with a client CA, requests need a verified client certificate", async () => {
  const s0 = await startFakeApiServer({ tls: true });
  const ownCA = s0.caPEM!;
  await s0.stop();
  const s = await startFakeApiServer({ tls: { clientCA: ownCA } });
  const anonymous = Deno.createHttpClient({ caCerts: [s.caPEM!] });
  const withCert = Deno.createHttpClient({
    caCerts: [s.caPEM!],
    cert: s.clientCert!.certPEM,
    key: s.clientCert!.keyPEM,
  });
  try {
    const anon = await fetch(`${s.url}/api/v1/namespaces`, { client: anonymous });
    assert.equal(anon.status, 401);
    await anon.body?.cancel();
    const ok = await fetch(`${s.url}/api/v1/namespaces`, { client: withCert });
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
    // Watches stream over node:https too.
    const w = await fetch(`${s.url}/api/v1/namespaces/default/configmaps?watch=1`, { client: withCert });
    const reader = w.body!.getReader();
    const create = await fetch(`${s.url}/api/v1/namespaces/default/configmaps`, {
      client: withCert,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ metadata: { name: "over-tls" } }),
    });
    assert.equal(create.status, 201);
    await create.body?.cancel();
    const { value } = await reader.read();
    assert.equal(JSON.parse(new TextDecoder().decode(value)).object.metadata.name, "over-tls");
    await reader.cancel();
  } finally {
    anonymous.close();
    withCert.close();
    await s.stop();
  }
});

Deno.test("extension-apiserver-authentication ConfigMap; TokenReview and SubjectAccessReview with a deny hook", async () => {
  const s = await startFakeApiServer({ token: "t0k" });
  const auth = { authorization: "Bearer t0k" };
  try {
    const cm = await call(
      s.url,
      "GET",
      "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication",
      undefined,
      auth,
    );
    assert.equal(cm.status, 200);
    assert.match(cm.body.data["requestheader-client-ca-file"], /BEGIN CERTIFICATE/);
    assert.equal(cm.body.data["requestheader-username-headers"], '["X-Remote-User"]');
    const tr = await call(s.url, "POST", "/apis/authentication.k8s.io/v1/tokenreviews", {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenReview",
      spec: { token: "t0k" },
    }, auth);
    assert.equal(tr.status, 201);
    assert.equal(tr.body.status.authenticated, true);
    const review = {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SubjectAccessReview",
      spec: { user: "alice", resourceAttributes: { verb: "get", resource: "llamas" } },
    };
    const unbound = await call(s.url, "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", review, auth);
    assert.equal(unbound.body.status.allowed, false, "RBAC: nobody bound alice to anything");
    // As on a real cluster: alice and bob may get llamas once a ClusterRole and a binding say so.
    const rbac = "/apis/rbac.authorization.k8s.io/v1";
    await call(s.url, "POST", `${rbac}/clusterroles`, {
      metadata: { name: "llama-reader" },
      rules: [{ apiGroups: [""], resources: ["llamas"], verbs: ["get"] }],
    }, auth);
    await call(s.url, "POST", `${rbac}/clusterrolebindings`, {
      metadata: { name: "llama-readers" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "llama-reader" },
      subjects: ["alice", "bob"].map((name) => ({ apiGroup: "rbac.authorization.k8s.io", kind: "User", name })),
    }, auth);
    const allowed = await call(s.url, "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", review, auth);
    assert.equal(allowed.body.status.allowed, true);
    s.faults.denySubjectAccess((r) => r.spec.user !== "alice");
    assert.equal(
      (await call(s.url, "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", review, auth)).body.status
        .allowed,
      true,
    );
    const bob = { ...review, spec: { ...review.spec, user: "bob" } };
    const denied = await call(s.url, "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", bob, auth);
    assert.equal(denied.body.status.allowed, false);
  } finally {
    await s.stop();
  }
});
