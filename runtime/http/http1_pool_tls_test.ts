import assert from "node:assert/strict";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { createApiTransport, proxyFor } from "./api_http_client.ts";
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

Deno.test("api transport: kubeop's own connections, or fetch when a proxy applies to the server", () => {
  const env = (vars: Record<string, string>) => ({ get: (k: string) => vars[k] });
  const server = new URL("https://10.1.2.3:6443");
  assert.equal(proxyFor(server, env({})), undefined);
  for (const name of ["HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"]) {
    assert.equal(proxyFor(server, env({ [name]: "http://proxy:3128" }))?.variable, name);
  }
  assert.equal(proxyFor(server, env({ HTTP_PROXY: "http://proxy:3128" })), undefined, "HTTP_PROXY is for http targets");
  assert.equal(proxyFor(new URL("http://10.1.2.3"), env({ http_proxy: "proxy:3128" }))?.url.href, "http://proxy:3128/");
  assert.equal(proxyFor(server, env({ HTTPS_PROXY: "" })), undefined, "an empty variable is no proxy");
  const unreadable = {
    get: () => {
      throw new Deno.errors.NotCapable("env");
    },
  };
  assert.equal(proxyFor(server, unreadable), undefined);
  const direct = createApiTransport({ server, env: env({}) });
  const viaFetch = createApiTransport({ server, env: env({ https_proxy: "http://proxy:3128" }) });
  assert.equal(direct.kind, "pool");
  assert.equal(viaFetch.kind, "fetch");
  direct.close();
  viaFetch.close();
});

Deno.test("NO_PROXY: *, hosts and their subdomains, .suffixes, IPs, CIDR ranges, ports", () => {
  const via = (url: string, noProxy: string) =>
    proxyFor(new URL(url), { get: (k) => ({ HTTPS_PROXY: "http://proxy:3128", NO_PROXY: noProxy })[k] }) !== undefined;
  assert.equal(via("https://api.example.com", "*"), false);
  assert.equal(via("https://api.example.com", "example.com"), false);
  assert.equal(via("https://example.com", "example.com"), false);
  assert.equal(via("https://example.com", ".example.com"), true, "a leading dot matches subdomains only");
  assert.equal(via("https://api.example.com", ".example.com"), false);
  assert.equal(via("https://notexample.com", "example.com"), true);
  assert.equal(via("https://10.96.0.1", "10.0.0.0/8"), false);
  assert.equal(via("https://11.0.0.1", "10.0.0.0/8"), true);
  assert.equal(via("https://10.0.0.1:6443", "10.0.0.1:6443"), false);
  assert.equal(via("https://10.0.0.1:6443", "10.0.0.1:443"), true, "another port");
  assert.equal(via("https://[::1]:6443", "::1"), false);
  assert.equal(via("https://127.0.0.1", "localhost, 10.0.0.1"), true, "loopback is not exempt by itself");
  assert.throws(
    () => proxyFor(new URL("https://a"), { get: (k) => (k === "HTTPS_PROXY" ? "http://u:secret@[bad" : undefined) }),
    (e: Error) => /HTTPS_PROXY is not a URL/.test(e.message) && !e.message.includes("secret"),
  );
});
