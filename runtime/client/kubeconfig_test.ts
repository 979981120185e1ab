import assert from "node:assert/strict";
import { KubeconfigError, loadClusterConfig, parseKubeconfig } from "./kubeconfig.ts";

const KUBECONFIG = `
apiVersion: v1
kind: Config
current-context: dev
clusters:
  - name: c1
    cluster:
      server: https://127.0.0.1:6443/
      certificate-authority-data: ${btoa("CA-PEM")}
  - name: c2
    cluster:
      server: https://10.0.0.1
      certificate-authority: ca.crt
      tls-server-name: kubernetes
contexts:
  - name: dev
    context: { cluster: c1, user: u1, namespace: team-a }
  - name: prod
    context: { cluster: c2, user: u2 }
users:
  - name: u1
    user:
      client-certificate-data: ${btoa("CERT-PEM")}
      client-key-data: ${btoa("KEY-PEM")}
  - name: u2
    user:
      tokenFile: token
      exec:
        apiVersion: client.authentication.k8s.io/v1
        command: ./bin/plugin
        args: [get-token]
        env: [{ name: FOO, value: bar }]
`;

Deno.test("kubeconfig: current context with inline cert data and namespace", async () => {
  const c = await parseKubeconfig(KUBECONFIG);
  assert.equal(c.server, "https://127.0.0.1:6443");
  assert.equal(c.caPEM, "CA-PEM");
  assert.equal(c.certPEM, "CERT-PEM");
  assert.equal(c.keyPEM, "KEY-PEM");
  assert.equal(c.namespace, "team-a");
});

Deno.test("kubeconfig: --context picks another context; files resolve against the kubeconfig's directory", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/ca.crt`, "FILE-CA");
    await Deno.writeTextFile(`${dir}/config`, KUBECONFIG);
    const c = await loadClusterConfig({ kubeconfig: `${dir}/config`, context: "prod", env: () => undefined });
    assert.equal(c.caPEM, "FILE-CA");
    assert.equal(c.tokenFile, `${dir}/token`);
    assert.equal(c.tlsServerName, "kubernetes");
    assert.equal(c.exec?.command, `${dir}/./bin/plugin`);
    assert.deepEqual(c.exec?.args, ["get-token"]);
    assert.deepEqual(c.exec?.env, [{ name: "FOO", value: "bar" }]);
    await assert.rejects(() => loadClusterConfig({ kubeconfig: `${dir}/config`, context: "nope" }), KubeconfigError);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("kubeconfig: precedence is flag, then $KUBECONFIG's first file, then ~/.kube/config, then in-cluster", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/home/.kube`, { recursive: true });
    await Deno.writeTextFile(`${dir}/home/.kube/config`, KUBECONFIG.replace("127.0.0.1:6443", "home:1"));
    await Deno.writeTextFile(`${dir}/env1`, KUBECONFIG.replace("127.0.0.1:6443", "env:1"));
    const env = (vars: Record<string, string>) => (name: string) => vars[name];
    const fromEnv = await loadClusterConfig({
      env: env({ KUBECONFIG: `${dir}/env1:${dir}/other`, HOME: `${dir}/home` }),
    });
    assert.equal(fromEnv.server, "https://env:1");
    const fromHome = await loadClusterConfig({ env: env({ HOME: `${dir}/home` }) });
    assert.equal(fromHome.server, "https://home:1");
    await Deno.mkdir(`${dir}/sa`);
    await Deno.writeTextFile(`${dir}/sa/token`, "t");
    await Deno.writeTextFile(`${dir}/sa/ca.crt`, "SA-CA");
    await Deno.writeTextFile(`${dir}/sa/namespace`, "kubeop-system\n");
    const inCluster = await loadClusterConfig({
      env: env({ HOME: `${dir}/nohome`, KUBERNETES_SERVICE_HOST: "10.96.0.1", KUBERNETES_SERVICE_PORT: "443" }),
      serviceAccountDir: `${dir}/sa`,
    });
    assert.equal(inCluster.server, "https://10.96.0.1:443");
    assert.equal(inCluster.tokenFile, `${dir}/sa/token`);
    assert.equal(inCluster.caPEM, "SA-CA");
    assert.equal(inCluster.namespace, "kubeop-system");
    await assert.rejects(
      () => loadClusterConfig({ env: env({ HOME: `${dir}/nohome` }), serviceAccountDir: `${dir}/none` }),
      KubeconfigError,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("kubeconfig: malformed certificate fields fail with a KubeconfigError naming the field (found by fuzzing)", async () => {
  const config = (cluster: string) =>
    `current-context: c\ncontexts: [{name: c, context: {cluster: k}}]\nclusters: [{name: k, cluster: ${cluster}}]\n`;
  const cases: [string, RegExp][] = [
    [`{server: "https://x", certificate-authority-data: ["", "GYj!"]}`, /certificate-authority-data must be a string/],
    [
      `{server: "https://x", certificate-authority-data: "!!notbase64"}`,
      /certificate-authority-data is not valid base64/,
    ],
    [
      `{server: "https://x", certificate-authority: /nonexistent/ca.crt}`,
      /cluster "k" certificate-authority: cannot read \/nonexistent\/ca\.crt: no such file/,
    ],
    [`{server: "https://x", insecure-skip-tls-verify: "yes"}`, /cluster "k" insecure-skip-tls-verify must be true/],
    [`{server: "https://x", tls-server-name: [a]}`, /cluster "k" tls-server-name must be a string/],
  ];
  for (const [cluster, message] of cases) {
    await assert.rejects(
      () => parseKubeconfig(config(cluster), { source: "bad.yaml" }),
      (err) =>
        err instanceof KubeconfigError && /^kubeconfig bad\.yaml: /.test(err.message) && message.test(err.message),
      cluster,
    );
  }
});

Deno.test("kubeconfig: a missing context, cluster or client certificate file is named with its file and field", async () => {
  const doc = (user: string) =>
    `current-context: c\ncontexts: [{name: c, context: {cluster: k, user: u}}, {name: d, context: {cluster: gone}}]\n` +
    `clusters: [{name: k, cluster: {server: "https://x", tls-server-name: kubernetes.internal}}]\n` +
    `users: [{name: u, user: ${user}}]\n`;
  const rejects = (text: string, context: string | undefined, message: RegExp) =>
    assert.rejects(
      () => parseKubeconfig(text, { source: "/home/me/kube.yaml", context }),
      (err) =>
        err instanceof KubeconfigError && /^kubeconfig \/home\/me\/kube\.yaml: /.test(err.message) &&
        message.test(err.message),
    );
  await rejects(doc("{}"), "nope", /context "nope" \(--context\) not found; contexts: "c", "d"/);
  await rejects(doc("{}"), "d", /cluster "gone" \(context "d"\) not found; clusters: "k"/);
  await rejects(
    doc("{client-certificate: /nonexistent/u.crt, client-key: /nonexistent/u.key}"),
    undefined,
    /user "u" client-certificate: cannot read \/nonexistent\/u\.crt: no such file/,
  );
  await rejects(
    doc("{client-certificate-data: Q0VSVA==}"),
    undefined,
    /user "u" has client-certificate but no client-key/,
  );
  const ok = await parseKubeconfig(doc("{}"), { source: "/home/me/kube.yaml" });
  assert.deepEqual([ok.clusterName, ok.source, ok.tlsServerName], ["k", "/home/me/kube.yaml", "kubernetes.internal"]);
});
