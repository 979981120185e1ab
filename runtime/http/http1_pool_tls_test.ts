import assert from "node:assert/strict";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { createApiTransport, proxyVariable } from "./api_http_client.ts";
import { Http1Pool, HttpRequestError } from "./http1_pool.ts";
import { createCA } from "./pki.ts";

Deno.test("http1 pool over TLS: the CA is trusted, the client certificate is presented, the connection is reused", async () => {
  const ca = await createCA({ commonName: "pool-test-ca" });
  const serverCert = await ca.issue({ commonName: "127.0.0.1", hosts: ["127.0.0.1"], usage: "server" });
  const clientCert = await ca.issue({ commonName: "pool-client", usage: "client" });
  let sockets = 0;
  const server = https.createServer({
    key: serverCert.keyPEM,
    cert: serverCert.certPEM,
    ca: ca.certPEM,
    requestCert: true,
    rejectUnauthorized: true,
  }, (req, res) => {
    // deno-lint-ignore no-explicit-any
    const cn = (req.socket as any).getPeerCertificate?.()?.subject?.CN ?? "";
    let body = "";
    req.on("data", (d) => body += d);
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end(`${cn} ${req.method} ${body}`);
    });
  });
  server.on("secureConnection", () => sockets++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = new URL(`https://127.0.0.1:${(server.address() as AddressInfo).port}/whoami`);
  const pool = new Http1Pool({ tls: { caCerts: [ca.certPEM], cert: clientCert.certPEM, key: clientCert.keyPEM } });
  const untrusting = new Http1Pool();
  try {
    for (const body of ["a", "b", "c"]) {
      const res = await pool.request({ method: "POST", url, body });
      assert.equal(new TextDecoder().decode(res.body), `pool-client POST ${body}`);
    }
    assert.equal(sockets, 1, "three requests on one TLS connection");
    await assert.rejects(() => untrusting.request({ method: "GET", url }), HttpRequestError);
  } finally {
    pool.close();
    untrusting.close();
    server.closeAllConnections?.();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

Deno.test("api transport: kubeop's pool, or fetch when a proxy variable is set", () => {
  const env = (vars: Record<string, string>) => ({ get: (k: string) => vars[k] });
  assert.equal(proxyVariable(env({})), undefined);
  for (const name of ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"]) {
    assert.equal(proxyVariable(env({ [name]: "http://proxy:3128" })), name);
  }
  assert.equal(proxyVariable(env({ HTTPS_PROXY: "" })), undefined, "an empty variable is no proxy");
  assert.equal(
    proxyVariable({
      get: () => {
        throw new Deno.errors.NotCapable("env");
      },
    }),
    undefined,
  );
  const pool = createApiTransport({}, env({}));
  const viaFetch = createApiTransport({}, env({ https_proxy: "http://proxy:3128" }));
  assert.equal(pool.kind, "pool");
  assert.equal(viaFetch.kind, "fetch");
  pool.close();
  viaFetch.close();
});
