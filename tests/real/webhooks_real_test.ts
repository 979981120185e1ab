// The seed webhooks on a REAL kube-apiserver (v1.37): `kubeop run` serves them on 127.0.0.1 (`--webhook-cert-dir`
// with a certificate for 127.0.0.1), registered by `clientConfig.url` + caBundle (the apiserver here cannot reach a
// Service). kubectl apply of a bad Netperf is refused with the handler's message; At v1beta1 is read through kubeop's
// conversion webhook; MultiSecret's mutating webhook defaults spec.secretName; with kubeop stopped, failurePolicy decides: Ignore (Netperf) admits, Fail (MultiSecret)
// refuses with kube's "failed calling webhook".
import assert from "node:assert/strict";
import { seedWebhooks } from "../../cli/webhooks.ts";
import { crdManifests } from "../../controllers/crds.ts";
import { KubeClient } from "../../runtime/client/client.ts";
import { loadKubeconfigFile } from "../../runtime/client/kubeconfig.ts";
import { createCA } from "../../runtime/http/pki.ts";
import { encodeCaBundle } from "../../runtime/webhook/ca_bundle_injector.ts";
import { registerWebhooks } from "../../runtime/webhook/loopback.ts";
import { realClusterBinDir, startRealCluster } from "../support/real_cluster.ts";
import { collectText, freePort, poll } from "./support_real.ts";

const binDir = await realClusterBinDir();
const ROOT = new URL("../../", import.meta.url);
const CRDS = ["ats.cnat.ishankhare.dev", "netperfs.app.example.com", "multisecrets.multi.ddnw.ml"];

const BAD_NETPERF = (name: string) =>
  `apiVersion: app.example.com/v1alpha1\nkind: Netperf\nmetadata: { name: ${name}, namespace: default }\n` +
  `spec: { serverNode: no-such-node }\n`;
const MULTISECRET = "apiVersion: multi.ddnw.ml/v1alpha1\nkind: MultiSecret\n" +
  "metadata: { name: ms, namespace: default }\nspec: { stringData: { password: s3cr3t }, type: Opaque }\n";
const AT = "apiVersion: cnat.ishankhare.dev/v1alpha1\nkind: At\nmetadata: { name: later, namespace: default }\n" +
  'spec: { schedule: "2999-01-01T00:00:00Z", command: "echo hello  world" }\n';

Deno.test({
  name: "real cluster: kubeop run's webhooks — Netperf refused, At v1beta1 converted, failurePolicy with kubeop down",
  ignore: !binDir,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const cluster = await startRealCluster({ binDir });
    const admin = new KubeClient({ config: await loadKubeconfigFile(cluster.kubeconfigPath) });
    const dir = await Deno.makeTempDir({ prefix: "kubeop-real-webhooks-" });
    const kubectl = async (args: string[], stdin?: string) => {
      const child = new Deno.Command(`${binDir}/kubectl`, {
        args: ["--kubeconfig", cluster.kubeconfigPath, ...args],
        env: { KUBECACHEDIR: `${dir}/kubectl-cache` },
        stdin: stdin === undefined ? "null" : "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      if (stdin !== undefined) {
        const writer = child.stdin.getWriter();
        await writer.write(new TextEncoder().encode(stdin));
        await writer.close();
      }
      const out = await child.output();
      const decode = (b: Uint8Array) => new TextDecoder().decode(b);
      return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
    };
    const ok = async (args: string[], stdin?: string) => {
      const out = await kubectl(args, stdin);
      assert.equal(out.code, 0, `kubectl ${args.join(" ")}: ${out.stderr}`);
      return out.stdout;
    };
    let child: Deno.ChildProcess | undefined;
    try {
      // At's CRD as deploy/ applies it where the webhook runs: v1beta1 and the conversion stanza added to crds/.
      for (const crd of crdManifests({ converting: CRDS }).filter((c) => CRDS.includes(c.metadata.name!))) {
        await ok(["apply", "-f", "-"], JSON.stringify(crd));
      }
      await ok(["wait", "--for=condition=Established", "--timeout=30s", ...CRDS.map((n) => `crd/${n}`)]);

      // A serving certificate for 127.0.0.1, handed over as cert-manager would (--webhook-cert-dir).
      const ca = await createCA({ commonName: "webhooks-real-test-ca" });
      const leaf = await ca.issue({ commonName: "kubeop-webhook", hosts: ["127.0.0.1"], usage: "server" });
      await Deno.mkdir(`${dir}/certs`);
      await Deno.writeTextFile(`${dir}/certs/tls.crt`, leaf.certPEM);
      await Deno.writeTextFile(`${dir}/certs/tls.key`, leaf.keyPEM);
      const [webhookPort, probePort] = [freePort(), freePort()];
      child = new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          new URL("main.ts", ROOT).pathname,
          "run",
          "--kubeconfig",
          cluster.kubeconfigPath,
          "--controllers",
          "at,netperf,multisecret",
          "--metrics-bind-address",
          "0",
          "--health-probe-bind-address",
          `127.0.0.1:${probePort}`,
          "--webhook-bind-address",
          `127.0.0.1:${webhookPort}`,
          "--webhook-cert-dir",
          `${dir}/certs`,
        ],
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const err = collectText(child.stderr);
      const out = collectText(child.stdout);
      try {
        await poll("kubeop run /readyz", async () => {
          const res = await fetch(`http://127.0.0.1:${probePort}/readyz`);
          await res.body?.cancel();
          return res.ok;
        }, { deadlineMs: 60_000, intervalMs: 250 });
        const written = await registerWebhooks(admin, seedWebhooks(["at", "netperf", "multisecret"]), {
          url: `https://127.0.0.1:${webhookPort}`,
          caBundle: encodeCaBundle(ca.certPEM),
        });
        assert.deepEqual(written, [
          "ValidatingWebhookConfiguration/kubeop-validating-webhook-configuration",
          "MutatingWebhookConfiguration/kubeop-mutating-webhook-configuration",
          "CustomResourceDefinition/ats.cnat.ishankhare.dev",
        ]);

        // Admission: the handler's message reaches kubectl. (A new configuration takes a moment to be used.)
        const refused = await poll("the Netperf webhook to refuse", async () => {
          const res = await kubectl(["apply", "-f", "-"], BAD_NETPERF("bad-node"));
          return res.code !== 0 && /denied the request/.test(res.stderr) ? res.stderr : undefined;
        }, { deadlineMs: 30_000, intervalMs: 250 });
        assert.match(
          refused,
          /admission webhook "vnetperf\.app\.example\.com" denied the request: spec\.serverNode: Node "no-such-node" not found/,
        );

        // Mutation: MultiSecret's spec.secretName defaults to its name (a default the schema cannot express).
        await ok(["apply", "-f", "-"], MULTISECRET.replace("name: ms,", "name: ms-up,"));
        assert.equal(
          await ok(["get", "multisecret", "ms-up", "-n", "default", "-o", "jsonpath={.spec.secretName}"]),
          "ms-up",
        );

        // Conversion: v1alpha1 applies unchanged; v1beta1 (kubectl's preferred version) comes from kubeop's /convert.
        await ok(["apply", "-f", "-"], AT);
        const argv = await poll("At v1beta1 through the conversion webhook", async () => {
          const res = await kubectl([
            "get",
            "ats.v1beta1.cnat.ishankhare.dev",
            "later",
            "-o",
            "jsonpath={.spec.command}",
          ]);
          return res.code === 0 ? res.stdout : undefined;
        }, { deadlineMs: 30_000, intervalMs: 250 });
        assert.deepEqual(JSON.parse(argv), ["echo", "hello", "world"]);
        assert.equal(await ok(["get", "ats", "later", "-o", "jsonpath={.apiVersion}"]), "cnat.ishankhare.dev/v1beta1");
        assert.equal(
          await ok(["get", "ats.v1alpha1.cnat.ishankhare.dev", "later", "-o", "jsonpath={.spec.command}"]),
          "echo hello  world",
          "v1alpha1 clients read what they wrote",
        );
      } catch (e) {
        throw new Error(`${(e as Error).message}\nkubeop run stderr:\n${err.text().slice(-4000)}`);
      } finally {
        child.kill("SIGTERM");
        const status = await child.status;
        await Promise.all([out.done, err.done]);
        assert.equal(status.code, 0, `kubeop run exit code\n${err.text().slice(-3000)}`);
      }

      // kubeop is down: the apiserver cannot call the webhooks, and each failurePolicy decides.
      const admitted = await kubectl(["apply", "-f", "-"], BAD_NETPERF("admitted-while-down"));
      assert.equal(admitted.code, 0, `failurePolicy Ignore admits: ${admitted.stderr}`);
      const blocked = await kubectl(["apply", "-f", "-"], MULTISECRET);
      assert.notEqual(blocked.code, 0, "failurePolicy Fail refuses");
      assert.match(
        blocked.stderr,
        /Internal error occurred: failed calling webhook "vmultisecret\.multi\.ddnw\.ml": failed to call webhook: Post "https:\/\/127\.0\.0\.1:\d+\/validate-multi-ddnw-ml-v1alpha1-multisecret\?timeout=10s": .*connection refused/,
      );
      const unconverted = await kubectl(["get", "ats.v1beta1.cnat.ishankhare.dev", "later"]);
      assert.notEqual(unconverted.code, 0, "no conversion webhook, no v1beta1");
      assert.match(unconverted.stderr, /conversion webhook for cnat\.ishankhare\.dev\/v1alpha1, Kind=At failed/);
      assert.equal(
        await ok(["get", "ats.v1alpha1.cnat.ishankhare.dev", "later", "-o", "jsonpath={.spec.command}"]),
        "echo hello  world",
        "the storage version needs no webhook",
      );
    } finally {
      try {
        child?.kill("SIGKILL");
      } catch { /* exited */ }
      admin.close();
      await cluster.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
