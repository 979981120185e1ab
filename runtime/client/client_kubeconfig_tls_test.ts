// Kubeconfigs as clusters write them, against HTTPS servers on 127.0.0.1 whose certificate needs the field:
// insecure-skip-tls-verify, tls-server-name, a self-signed `openssl req -x509` certificate that is its own CA. Unary
// GETs and watches, client certificates presented (mTLS), and the error each gives without the field.
import assert from "node:assert/strict";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { reset } from "@logtape/logtape";
import { KubeClient } from "./client.ts";
import { loadKubeconfigFile } from "./kubeconfig.ts";
import { CoreTypes, type WatchEvent } from "../types.ts";
import { captureSink, configureLogging } from "../observe/log.ts";

const noProxy = { get: () => undefined };
const b64 = (pem: string) => btoa(pem);

/** openssl in `dir`; throws with its stderr. */
async function openssl(dir: string, args: string[]): Promise<void> {
  const out = await new Deno.Command("openssl", { args, cwd: dir, stdout: "null", stderr: "piped" }).output();
  if (!out.success) throw new Error(`openssl ${args[0]}: ${new TextDecoder().decode(out.stderr)}`);
}

const EC = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];

/** A key and certificate `name` signed by `ca` with the given extensions. */
async function issue(dir: string, ca: string, name: string, cn: string, ext: string): Promise<void> {
  await Deno.writeTextFile(`${dir}/${name}.ext`, ext);
  await openssl(dir, ["req", ...EC, "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", `/CN=${cn}`]);
  await openssl(dir, [
    "x509",
    "-req",
    "-in",
    `${name}.csr`,
    "-CA",
    `${ca}.crt`,
    "-CAkey",
    `${ca}.key`,
    "-CAcreateserial",
    "-out",
    `${name}.crt`,
    "-days",
    "1",
    "-extfile",
    `${name}.ext`,
  ]);
}

interface Pki {
  dir: string;
  read(name: string): string;
}

/**
 * ca (the kubeconfig's), rogue (no kubeconfig trusts it), a client certificate from ca, a server certificate from
 * ca naming only kubernetes.internal, one from rogue naming 127.0.0.1, and a self-signed 127.0.0.1 certificate as
 * `openssl req -x509` makes it (basicConstraints CA:TRUE: its own CA).
 */
async function makePki(): Promise<Pki> {
  const dir = await Deno.makeTempDir({ prefix: "kubeop-tls-" });
  for (const ca of ["ca", "rogue"]) {
    await openssl(dir, [
      "req",
      "-x509",
      ...EC,
      "-keyout",
      `${ca}.key`,
      "-out",
      `${ca}.crt`,
      "-days",
      "1",
      "-subj",
      `/CN=${ca}`,
    ]);
  }
  await openssl(dir, [
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    "self.key",
    "-out",
    "self.crt",
    "-days",
    "1",
    "-subj",
    "/CN=127.0.0.1",
    "-addext",
    "subjectAltName=IP:127.0.0.1",
  ]);
  await issue(dir, "ca", "client", "tls-user", "extendedKeyUsage=clientAuth\n");
  await issue(
    dir,
    "ca",
    "internal",
    "kubernetes",
    "subjectAltName=DNS:kubernetes.internal\nextendedKeyUsage=serverAuth\n",
  );
  await issue(dir, "rogue", "unsigned", "127.0.0.1", "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n");
  const files = new Map<string, string>();
  for (const f of ["ca", "rogue", "self", "client", "internal", "unsigned"]) {
    files.set(`${f}.crt`, await Deno.readTextFile(`${dir}/${f}.crt`));
    files.set(`${f}.key`, await Deno.readTextFile(`${dir}/${f}.key`));
  }
  return { dir, read: (name) => files.get(name)! };
}

/**
 * An API-server stand-in on 127.0.0.1 with `name`'s certificate, asking for a client certificate signed by ca (when
 * `mtls`): GET answers a Namespace named after the client's CN, a watch one ADDED event.
 */
async function serve(pki: Pki, name: string, mtls: boolean) {
  const server = https.createServer({
    key: pki.read(`${name}.key`),
    cert: pki.read(`${name}.crt`),
    ...(mtls ? { ca: pki.read("ca.crt"), requestCert: true, rejectUnauthorized: true } : {}),
  }, (req, res) => {
    // deno-lint-ignore no-explicit-any
    const cn = (req.socket as any).getPeerCertificate?.()?.subject?.CN || "anonymous";
    res.writeHead(200, { "content-type": "application/json" });
    if (req.url?.includes("watch=true")) {
      res.end(JSON.stringify({ type: "ADDED", object: { metadata: { name: cn } } }) + "\n");
    } else res.end(JSON.stringify({ kind: "Namespace", metadata: { name: cn } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections?.();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Writes a kubeconfig with one context, cluster `cluster` and user `me` (ca's client certificate) and loads it. */
async function kubeconfig(pki: Pki, cluster: string, fields: Record<string, unknown>) {
  const path = `${pki.dir}/${cluster}.kubeconfig`;
  const doc = {
    "current-context": "ctx",
    contexts: [{ name: "ctx", context: { cluster, user: "me" } }],
    clusters: [{ name: cluster, cluster: fields }],
    users: [{
      name: "me",
      user: { "client-certificate-data": b64(pki.read("client.crt")), "client-key-data": b64(pki.read("client.key")) },
    }],
  };
  await Deno.writeTextFile(path, JSON.stringify(doc));
  return { path, config: await loadKubeconfigFile(path) };
}

/** A GET and a watch through a client of `config`: the names the server answered with. */
async function getAndWatch(config: Awaited<ReturnType<typeof kubeconfig>>["config"]): Promise<string[]> {
  const client = new KubeClient({ config, proxyEnv: noProxy });
  try {
    const ns = await client.get(CoreTypes.Namespace, "whoami");
    const events: WatchEvent[] = [];
    await client.watchStream(CoreTypes.Namespace, {}, (e) => events.push(e));
    const again = await client.get(CoreTypes.Namespace, "whoami");
    return [ns.metadata.name!, ...events.map((e) => `${e.type} ${e.object.metadata.name}`), again.metadata.name!];
  } finally {
    client.close();
  }
}

/** The GET and the watch both reject with an error matching every pattern. */
async function bothFail(config: Awaited<ReturnType<typeof kubeconfig>>["config"], patterns: RegExp[]) {
  const client = new KubeClient({ config, proxyEnv: noProxy });
  const check = (err: unknown) => {
    const message = (err as Error).message;
    for (const p of patterns) assert.match(message, p);
    assert.ok(!message.includes("PRIVATE KEY"), message);
    return true;
  };
  try {
    await assert.rejects(() => client.get(CoreTypes.Namespace, "whoami"), check);
    await assert.rejects(() => client.watchStream(CoreTypes.Namespace, {}, () => {}), check);
  } finally {
    client.close();
  }
}

const pki = await makePki();

Deno.test("kubeconfig TLS: insecure-skip-tls-verify reaches a server no kubeconfig CA signs (GET, watch, mTLS), warning once", async () => {
  const server = await serve(pki, "unsigned", true);
  const capture = captureSink();
  await configureLogging({ sink: capture.sink, level: "info" });
  try {
    const ca = b64(pki.read("ca.crt"));
    const { config, path } = await kubeconfig(pki, "lab", { server: server.url, "insecure-skip-tls-verify": true });
    assert.deepEqual(await getAndWatch(config), ["tls-user", "ADDED tls-user", "tls-user"]);
    assert.deepEqual(await getAndWatch(config), ["tls-user", "ADDED tls-user", "tls-user"]);
    const warnings = capture.lines().filter((l) => l.includes("insecure-skip-tls-verify"));
    assert.equal(warnings.length, 1, capture.lines().join("\n"));
    assert.ok(JSON.parse(warnings[0]).msg.includes(`cluster "lab" of kubeconfig ${path}:`), warnings[0]);
    assert.equal(JSON.parse(warnings[0]).level, "warn");
    assert.ok(!capture.lines().join("\n").includes("PRIVATE KEY"));
    const strict = await kubeconfig(pki, "strict", { server: server.url, "certificate-authority-data": ca });
    await bothFail(strict.config, [
      new RegExp(`cluster "strict" of kubeconfig ${strict.path}`),
      /not signed by the certificate-authority\(-data\)/,
      /insecure-skip-tls-verify: true/,
    ]);
  } finally {
    await reset();
    await server.close();
  }
});

Deno.test("kubeconfig TLS: tls-server-name verifies a certificate naming another host than the URL's", async () => {
  const server = await serve(pki, "internal", true);
  try {
    const ca = b64(pki.read("ca.crt"));
    const named = await kubeconfig(pki, "tunnel", {
      server: server.url,
      "certificate-authority-data": ca,
      "tls-server-name": "kubernetes.internal",
    });
    assert.deepEqual(await getAndWatch(named.config), ["tls-user", "ADDED tls-user", "tls-user"]);
    const unnamed = await kubeconfig(pki, "tunnel-plain", { server: server.url, "certificate-authority-data": ca });
    await bothFail(unnamed.config, [/cluster "tunnel-plain" of kubeconfig/, /set tls-server-name on/]);
    const wrong = await kubeconfig(pki, "tunnel-wrong", {
      server: server.url,
      "certificate-authority-data": ca,
      "tls-server-name": "elsewhere.internal",
    });
    await bothFail(wrong.config, [/does not name tls-server-name elsewhere\.internal/]);
  } finally {
    await server.close();
  }
});

Deno.test("kubeconfig TLS: a self-signed openssl req -x509 certificate is its own CA (Go accepts it; so does kubeop)", async () => {
  const server = await serve(pki, "self", false);
  try {
    const self = await kubeconfig(pki, "selfsigned", {
      server: server.url,
      "certificate-authority-data": b64(pki.read("self.crt")),
    });
    assert.deepEqual(await getAndWatch(self.config), ["anonymous", "ADDED anonymous", "anonymous"]);
    const other = await kubeconfig(pki, "selfsigned-other-ca", {
      server: server.url,
      "certificate-authority-data": b64(pki.read("ca.crt")),
    });
    await bothFail(other.config, [/cluster "selfsigned-other-ca"/, /certificate-authority-data/]);
  } finally {
    await server.close();
  }
});

Deno.test("kubeconfig TLS: through HTTPS_PROXY, insecure-skip-tls-verify and tls-server-name fail at construction", async () => {
  const { config } = await kubeconfig(pki, "behind-proxy", {
    server: "https://10.9.8.7:6443",
    "insecure-skip-tls-verify": true,
    "tls-server-name": "kubernetes.internal",
  });
  const proxyEnv = { get: (k: string) => (k === "HTTPS_PROXY" ? "http://user:secret@proxy:3128" : undefined) };
  assert.throws(
    () => new KubeClient({ config, proxyEnv }),
    (err: Error) =>
      /insecure-skip-tls-verify and tls-server-name of cluster "behind-proxy"/.test(err.message) &&
      /HTTPS_PROXY/.test(err.message) && /NO_PROXY/.test(err.message) && !err.message.includes("secret"),
  );
});

Deno.test("kubeconfig TLS: cleanup", async () => {
  await Deno.remove(pki.dir, { recursive: true });
});
