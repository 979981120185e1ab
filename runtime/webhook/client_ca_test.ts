// `--webhook-client-ca` (controller-runtime's ClientCAName): the webhook server's TLS handshake requires a client
// certificate signed by the given CA — with certificates made by openssl as well as by kubeop's own PKI.
import assert from "node:assert/strict";
import { Metrics } from "../observe/metrics.ts";
import { createCA } from "../http/pki.ts";
import { startRunnable } from "../manager/runnable.ts";
import { WebhookServer } from "./server.ts";

interface Pair {
  certPEM: string;
  keyPEM: string;
}

async function openssl(dir: string, args: string[]): Promise<void> {
  const out = await new Deno.Command("openssl", { args, cwd: dir, stdout: "piped", stderr: "piped" }).output();
  if (!out.success) throw new Error(`openssl ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
}

/** A CA and a client certificate it signed (CN kube-apiserver, clientAuth), made by the openssl command. */
async function opensslPki(dir: string): Promise<{ caPEM: string; client: Pair }> {
  await openssl(dir, ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "ca.key"]);
  await openssl(dir, [
    "req",
    "-x509",
    "-new",
    "-key",
    "ca.key",
    "-subj",
    "/CN=openssl-webhook-client-ca",
    "-days",
    "2",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
    "-out",
    "ca.crt",
  ]);
  await openssl(dir, ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "client.ec.key"]);
  await openssl(dir, ["pkcs8", "-topk8", "-nocrypt", "-in", "client.ec.key", "-out", "client.key"]);
  await openssl(dir, ["req", "-new", "-key", "client.key", "-subj", "/CN=kube-apiserver", "-out", "client.csr"]);
  await Deno.writeTextFile(`${dir}/client.ext`, "extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature\n");
  await openssl(dir, [
    "x509",
    "-req",
    "-in",
    "client.csr",
    "-CA",
    "ca.crt",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-days",
    "2",
    "-extfile",
    "client.ext",
    "-out",
    "client.crt",
  ]);
  return {
    caPEM: await Deno.readTextFile(`${dir}/ca.crt`),
    client: {
      certPEM: await Deno.readTextFile(`${dir}/client.crt`),
      keyPEM: await Deno.readTextFile(`${dir}/client.key`),
    },
  };
}

async function startServer(clientCAFile: string | undefined) {
  const ca = await createCA({ commonName: "webhook-serving-ca" });
  const leaf = await ca.issue({ commonName: "webhook", hosts: ["127.0.0.1"], usage: "server" });
  const metrics = new Metrics();
  const server = new WebhookServer({
    bindAddress: "127.0.0.1:0",
    certificates: { initial: () => Promise.resolve(leaf), watch: () => Promise.resolve() },
    routes: [{ path: "/echo", serve: (body) => Promise.resolve({ status: 200, body }) }],
    metrics,
    clientCAFile,
  });
  const stop = new AbortController();
  const run = startRunnable(server, stop.signal);
  await run.ready;
  /** The status, or "refused" when the handshake failed and nothing was answered. */
  const post = async (cert?: Pair): Promise<number | "refused"> => {
    const client = Deno.createHttpClient({
      caCerts: [ca.certPEM],
      ...(cert ? { cert: cert.certPEM, key: cert.keyPEM } : {}),
    });
    try {
      const res = await fetch(`${server.url}/echo`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
        client,
      });
      await res.body?.cancel();
      return res.status;
    } catch {
      return "refused";
    } finally {
      client.close();
    }
  };
  return {
    post,
    metrics,
    close: async () => {
      stop.abort();
      await run.done;
    },
  };
}

Deno.test("--webhook-client-ca: only a client certificate the CA signed gets an answer (openssl and kubeop PKI)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "webhook-client-ca-" });
  try {
    const fromOpenssl = await opensslPki(dir);
    const ours = await createCA({ commonName: "kubeop-client-ca" });
    const oursClient = await ours.issue({ commonName: "kube-apiserver", usage: "client" });
    await Deno.writeTextFile(`${dir}/openssl-ca.pem`, fromOpenssl.caPEM);
    await Deno.writeTextFile(`${dir}/ours-ca.pem`, ours.certPEM);

    const cases = [
      ["openssl CA", `${dir}/openssl-ca.pem`, fromOpenssl.client, oursClient],
      ["kubeop CA", `${dir}/ours-ca.pem`, oursClient, fromOpenssl.client],
    ] as const;
    for (const [name, file, trusted, untrusted] of cases) {
      const s = await startServer(file);
      try {
        assert.equal(await s.post(trusted), 200, `${name}: its own client certificate`);
        assert.equal(await s.post(), "refused", `${name}: no client certificate`);
        assert.equal(await s.post(untrusted), "refused", `${name}: a certificate from another CA`);
        assert.equal(await s.metrics.value("authentication_attempts", { result: "success" }), 1, name);
        assert.equal(await s.metrics.value("authentication_attempts", { result: "failure" }), 1, name);
        assert.equal(await s.metrics.value("authentication_attempts", { result: "error" }), 1, name);
        assert.equal(
          await s.metrics.value("controller_runtime_webhook_requests_total", { webhook: "/echo", code: "200" }),
          1,
          `${name}: refused callers never reached the handler`,
        );
      } finally {
        await s.close();
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("without --webhook-client-ca no client certificate is asked (the default)", async () => {
  const s = await startServer(undefined);
  try {
    assert.equal(await s.post(), 200);
  } finally {
    await s.close();
  }
});

Deno.test("an unreadable --webhook-client-ca fails the start with the file named", async () => {
  const missing = `${await Deno.makeTempDir()}/nope.pem`;
  await assert.rejects(() => startServer(missing), /--webhook-client-ca .*nope\.pem/);
});
