import assert from "node:assert/strict";
import { createCA } from "../runtime/http/pki.ts";
import { certificateSubject, describeIdentity } from "./identity.ts";
import { listening, startupLines } from "./startup_summary.ts";

const b64url = (s: string) => btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

Deno.test("identity: a client certificate is named by its CN and O, never its body", async () => {
  const ca = await createCA({ commonName: "test-ca" });
  const leaf = await ca.issue({ commonName: "jane", organizations: ["dev", "system:masters"], usage: "client" });
  assert.equal(certificateSubject(leaf.certPEM), "CN=jane, O=dev, O=system:masters");
  const text = await describeIdentity({
    server: "https://k",
    userName: "lab",
    certPEM: leaf.certPEM,
    keyPEM: leaf.keyPEM,
  });
  assert.equal(text, 'user "lab" (client certificate CN=jane, O=dev, O=system:masters)');
  assert.ok(!text.includes("BEGIN"));
});

Deno.test("identity: tokens, token files and exec plugins are named by kind only", async () => {
  assert.equal(
    await describeIdentity({ server: "https://k", userName: "u", token: "s3cret" }),
    'user "u" (bearer token)',
  );
  assert.equal(
    await describeIdentity({ server: "https://k", userName: "u", exec: { command: "/usr/bin/aws-iam-authenticator" } }),
    'user "u" (exec plugin aws-iam-authenticator)',
  );
  assert.equal(await describeIdentity({ server: "https://k" }), "no user entry (no credentials: anonymous)");
  assert.equal(certificateSubject("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----"), undefined);
});

Deno.test("identity: in a pod, the service account from the token's sub claim; the token is not kept", async () => {
  const token = `${b64url('{"alg":"RS256"}')}.${
    b64url('{"sub":"system:serviceaccount:kubeop-system:kubeop","iss":"k"}')
  }.c2lnbmF0dXJl`;
  const config = { server: "https://10.0.0.1:443", tokenFile: "/sa/token", inCluster: true };
  const text = await describeIdentity(config, () => Promise.resolve(token));
  assert.equal(text, "service account kubeop-system/kubeop (in-cluster token)");
  assert.equal(
    await describeIdentity(config, () => Promise.resolve("opaque-token")),
    "the pod's service account (in-cluster token)",
  );
  assert.equal(
    await describeIdentity(config, () => Promise.reject(new Error("gone"))),
    "the pod's service account (in-cluster token)",
  );
});

Deno.test("startup lines: one fact per line, in order, with structured fields", () => {
  const lines = startupLines({
    command: "run",
    version: "1.2.3",
    cluster: { server: "https://10.0.0.1:443", tokenFile: "/sa/token", inCluster: true },
    identity: "service account a/b (in-cluster token)",
    namespaces: ["x", "y"],
    controllers: [],
    leaderElection: { on: true, detail: "Lease ns/kubeop" },
    sharding: { on: false },
    webhooks: { on: false, why: "none" },
    metrics: listening(":8080", "https"),
    probes: listening("0", "http"),
    extra: [{ message: "extra {x}", props: { x: "1" } }],
  });
  assert.deepEqual(lines.map((l) => l.message.split(":")[0].split(" {")[0]), [
    "kubeop",
    "cluster",
    "identity",
    "namespaces",
    "controllers",
    "leader election",
    "sharding",
    "webhooks",
    "metrics",
    "health probes",
    "extra",
  ]);
  assert.equal(lines[1].props.context, "in-cluster");
  assert.equal(lines[3].props.namespaces, "x,y");
  assert.equal(lines[4].props.controllers, "none");
  assert.equal(lines[5].props.leaderElection, "on, Lease ns/kubeop");
  assert.equal(lines[8].props.metrics, "on, https on :8080");
  assert.equal(lines[9].props.probes, "off (bind address 0)");
  assert.equal(startupLines({ ...baseFacts(), cluster: { none: "no kubeconfig" } })[1].props.reason, "no kubeconfig");
});

function baseFacts() {
  return {
    command: "apiserver",
    version: "1",
    cluster: { server: "https://k" },
    namespaces: [],
    controllers: [],
    leaderElection: { on: false as const },
    sharding: { on: false as const },
    webhooks: { on: false as const },
    metrics: { on: false as const },
    probes: { on: false as const },
  };
}
