// Real-cluster tier: `kubectl apply -k deploy/` on a real kube-apiserver (namespace first, then a server-side dry
// run, then for real), and the operator run as its Pod would run it: the Deployment's own args, no kubeconfig, the
// in-cluster environment, the ServiceAccount's token/CA/namespace bind-mounted at
// /var/run/secrets/kubernetes.io/serviceaccount, the container's narrow permissions, and a token rotation.
import assert from "node:assert/strict";
import YAML from "yaml";
import { realClusterBinDir, startRealCluster } from "../support/real_cluster.ts";
import {
  IN_CLUSTER_PERMISSIONS,
  spawnInCluster,
  userNamespacesWork,
  writeAtomically,
  writeServiceAccountDir,
} from "../support/in_cluster.ts";
import { poll } from "./support_real.ts";

const binDir = await realClusterBinDir();
const root = new URL("../../", import.meta.url);
const NAMESPACE = "kubeop-system";

Deno.test({
  name: "real cluster: deploy/ applies (dry run, then for real) and the operator runs as its Pod would",
  ignore: !binDir || !(await userNamespacesWork()),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const cluster = await startRealCluster({ binDir });
    const cacheDir = await Deno.makeTempDir({ prefix: "kubeop-kubectl-cache-" });
    const kubectl = async (...args: string[]) => {
      const out = await new Deno.Command(`${binDir}/kubectl`, {
        args: ["--kubeconfig", cluster.kubeconfigPath, "--cache-dir", cacheDir, ...args],
        cwd: root.pathname,
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stdout = new TextDecoder().decode(out.stdout);
      const stderr = new TextDecoder().decode(out.stderr);
      assert.equal(out.code, 0, `kubectl ${args.join(" ")}:\n${stderr}${stdout}`);
      return stdout;
    };
    const token = async (boundSecret: string) => {
      await kubectl(
        "-n",
        NAMESPACE,
        "create",
        "secret",
        "generic",
        boundSecret,
        "--from-literal=purpose=token-binding",
      );
      // Bound to a Secret: deleting the Secret invalidates the token, so a rotation can be proven.
      const out = await kubectl(
        "-n",
        NAMESPACE,
        "create",
        "token",
        "kubeop-controller",
        "--bound-object-kind=Secret",
        `--bound-object-name=${boundSecret}`,
        "--duration=1h",
      );
      return out.trim();
    };
    const ownedPod = async (at: string) => {
      const pods = JSON.parse(await kubectl("-n", "default", "get", "pods", "-o", "json")).items as {
        metadata: { ownerReferences?: { kind: string; name: string }[] };
      }[];
      return pods.some((p) => p.metadata.ownerReferences?.some((o) => o.kind === "At" && o.name === at));
    };
    const saDir = await Deno.makeTempDir({ prefix: "kubeop-sa-" });
    let operator: ReturnType<typeof spawnInCluster> | undefined;
    try {
      await t.step("namespace first, then `kubectl apply --dry-run=server -k deploy/`, then for real", async () => {
        await kubectl("create", "namespace", NAMESPACE);
        const dry = await kubectl("apply", "--dry-run=server", "-k", "deploy/");
        assert.match(dry, /deployment\.apps\/kubeop-controller created \(server dry run\)/);
        assert.match(dry, /clusterrole\.rbac\.authorization\.k8s\.io\/kubeop-controller-machine created/);
        assert.match(dry, /clusterrole\.rbac\.authorization\.k8s\.io\/kubeop-metrics-reader created/);
        const applied = await kubectl("apply", "-k", "deploy/");
        assert.match(applied, /customresourcedefinition\.apiextensions\.k8s\.io\/ats\.cnat\.ishankhare\.dev created/);
        assert.match(applied, /poddisruptionbudget\.policy\/kubeop-controller created/);
        assert.match(applied, /networkpolicy\.networking\.k8s\.io\/kubeop-controller created/);
        await kubectl("wait", "--for=condition=Established", "crd", "--all", "--timeout=60s");
      });

      await t.step("kubeop run with the Deployment's args, in-cluster config and the image's permissions", async () => {
        await writeServiceAccountDir(saDir, {
          token: await token("token-a"),
          caPEM: await Deno.readTextFile(`${cluster.dir}/ca.crt`),
          namespace: NAMESPACE,
        });
        const deployment = YAML.parse(await Deno.readTextFile(new URL("deploy/operator/deployment.yaml", root)));
        const args = (deployment.spec.template.spec.containers[0].args as string[])
          .filter((a) => !/^--(metrics|health-probe)-bind-address=/.test(a));
        operator = spawnInCluster({
          serviceAccountDir: saDir,
          apiServerUrl: cluster.url,
          permissions: IN_CLUSTER_PERMISSIONS,
          args: [
            ...args,
            "--metrics-bind-address=127.0.0.1:0",
            "--health-probe-bind-address=127.0.0.1:0",
            "--webhook-bind-address=127.0.0.1:0",
          ],
        });
        const op = operator;
        await poll("the operator to lead", () => /became leader of lease kubeop/.test(op.logs()), {
          deadlineMs: 60_000,
        });
        await kubectl("-n", "default", "apply", "-f", "deploy/samples/cnat_v1alpha1_at.yaml");
        await poll("the At's Pod, created under the ServiceAccount's RBAC", () => ownedPod("at-sample"), {
          deadlineMs: 60_000,
        });
        const metricsUrl = /metrics server listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(op.logs())?.[1];
        assert.ok(metricsUrl, op.logs());
        const text = await (await fetch(`${metricsUrl}/metrics`)).text();
        assert.match(text, /^controller_runtime_reconcile_total\{controller="at",result="success"\} [1-9]/m);
        assert.match(text, /^process_cpu_seconds_total /m);
        assert.doesNotMatch(op.logs(), /403 Forbidden/, "the deployed RBAC covers every call");
        assert.doesNotMatch(op.logs(), /NotCapable/, "the image's permissions suffice");
      });

      await t.step("a rotated token is read from the file once the old one stops working", async () => {
        const op = operator!;
        const oldToken = await Deno.readTextFile(`${saDir}/token`);
        await writeAtomically(`${saDir}/token`, await token("token-b"));
        await kubectl("-n", NAMESPACE, "delete", "secret", "token-a");
        const http = Deno.createHttpClient({ caCerts: [await Deno.readTextFile(`${cluster.dir}/ca.crt`)] });
        try {
          await poll("the first token to be refused", async () => {
            const res = await fetch(`${cluster.url}/api`, {
              client: http,
              headers: { authorization: `Bearer ${oldToken}` },
            });
            await res.body?.cancel();
            return res.status === 401;
          }, { deadlineMs: 30_000 });
        } finally {
          http.close();
        }
        const at = {
          apiVersion: "cnat.ishankhare.dev/v1alpha1",
          kind: "At",
          metadata: { name: "at-after-rotation", namespace: "default" },
          spec: { schedule: "2020-11-16T10:12:00Z", command: "echo rotated" },
        };
        const file = `${cacheDir}/at-after-rotation.json`;
        await Deno.writeTextFile(file, JSON.stringify(at));
        await kubectl("apply", "-f", file);
        // Only the operator creates Pods, and only the new token is valid now.
        await poll("the second At's Pod, written with the rotated token", () => ownedPod("at-after-rotation"), {
          deadlineMs: 90_000,
        });
        assert.doesNotMatch(op.logs(), /lost leadership/);
      });
    } finally {
      const status = await operator?.stop();
      await cluster.stop();
      await Deno.remove(cacheDir, { recursive: true }).catch(() => {});
      await Deno.remove(saDir, { recursive: true }).catch(() => {});
      if (status) assert.equal(status.code, 0, `kubeop run exits 0 after SIGTERM:\n${operator!.logs().slice(-3000)}`);
    }
  },
});
