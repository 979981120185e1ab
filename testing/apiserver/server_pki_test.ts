import assert from "node:assert/strict";
import { startFakeApiServer } from "./server.ts";
import { call } from "../test_http.ts";

const AUTH_CM = "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication";

Deno.test("without TLS the auth ConfigMap is there for the first configmaps list, and one PKI serves concurrent first reads", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  try {
    const [all, one, again] = await Promise.all([
      call(s.url, "GET", "/api/v1/configmaps"),
      call(s.url, "GET", AUTH_CM),
      call(s.url, "GET", AUTH_CM),
    ]);
    assert.equal(all.status, 200);
    const names = all.body.items.map((o: { metadata: { name: string } }) => o.metadata.name);
    assert.deepEqual(names, ["extension-apiserver-authentication"]);
    assert.equal(one.status, 200);
    assert.match(one.body.data["client-ca-file"], /BEGIN CERTIFICATE/);
    assert.match(one.body.data["requestheader-client-ca-file"], /BEGIN CERTIFICATE/);
    assert.equal(again.body.metadata.resourceVersion, one.body.metadata.resourceVersion, "published once");
    assert.equal(again.body.data["client-ca-file"], one.body.data["client-ca-file"], "one PKI");
    await s.restart({ keepState: false });
    const rebuilt = await call(s.url, "GET", AUTH_CM);
    assert.equal(rebuilt.status, 200, "a fresh store gets the ConfigMap again");
    assert.equal(rebuilt.body.data["client-ca-file"], one.body.data["client-ca-file"]);
  } finally {
    await s.stop();
  }
});

Deno.test("without TLS a configmaps watch as first request sees the auth ConfigMap as ADDED", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  const abort = new AbortController();
  try {
    const res = await fetch(`${s.url}/api/v1/namespaces/kube-system/configmaps?watch=true`, { signal: abort.signal });
    assert.equal(res.status, 200);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    const first = JSON.parse(text.slice(0, text.indexOf("\n")));
    assert.equal(first.type, "ADDED");
    assert.equal(first.object.metadata.name, "extension-apiserver-authentication");
    await reader.cancel();
  } finally {
    abort.abort();
    await s.stop();
  }
});

Deno.test("with TLS the kubeconfig carries the CA and an admin client certificate from the start", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true, tls: true });
  try {
    assert.match(s.caPEM ?? "", /BEGIN CERTIFICATE/);
    assert.match(s.clientCert?.certPEM ?? "", /BEGIN CERTIFICATE/);
    assert.match(s.kubeconfig, /certificate-authority-data/);
    assert.match(s.kubeconfig, /client-key-data/);
  } finally {
    await s.stop();
  }
});
