// The farm aggregated API server (`kubeop apiserver`, a real subprocess) behind a REAL kube-apiserver v1.33's
// aggregator (issue 7): the APIService becomes Available, real kubectl 1.33 and 1.35 reach the llamas through the
// aggregator, authorization is delegated (SubjectAccessReview) to the real server, configmap storage survives a
// restart, and FarmPods mirror real Pods.
//
// Servers listen only on 127.0.0.1. The aggregator (with --enable-aggregator-routing=true) resolves an ExternalName
// Service to https://<externalName>:<APIService port>, so the Service is `type: ExternalName, externalName:
// localhost` and the APIService's port is the farm server's port; TLS ServerName is <svc>.<ns>.svc, a SAN of the
// farm's generated certificate (--service-name/--service-namespace).
import assert from "node:assert/strict";
import { DEFAULT_K8S_VERSION, realClusterBinDir, startRealCluster } from "../support/real_cluster.ts";
import {
  farmBinDir,
  farmManifests,
  type FarmProcess,
  kubectl,
  type KubectlResult,
  startFarmProcess,
} from "./support_farm.ts";
import { collectText, freePort, poll, rewriteKubeconfig } from "./support_real.ts";
import { createCA } from "../../runtime/http/pki.ts";

const binDir = await realClusterBinDir();
const ROOT = new URL("../../", import.meta.url);
const KUBECTLS = [
  [DEFAULT_K8S_VERSION.split(".").slice(0, 2).join(".").slice(1), `${binDir}/kubectl`],
  ["1.33", "/usr/lib/google-cloud-sdk/bin/kubectl.1.33"],
  ["1.35", new URL(".cache/clients/kubectl", ROOT).pathname],
] as const;
const APISERVICE = "v1alpha.farm.example.com";
const NS = "kubeop-system";

function ok(r: KubectlResult, what: string): string {
  assert.equal(r.code, 0, `${what}: exit ${r.code}\n${r.stderr}${r.stdout}`);
  return r.stdout;
}

Deno.test({
  name: "real cluster: farm aggregated API behind the real kube-apiserver's aggregator (issue 7)",
  ignore: !binDir,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const bin = await farmBinDir(binDir!);
    const cluster = await startRealCluster({ binDir: bin.dir });
    const dir = await Deno.makeTempDir({ prefix: "kubeop-real-farm-" });
    const admin = { kubeconfigPath: cluster.kubeconfigPath, cacheDir: `${dir}/cache-admin` };
    const k = (args: string[], stdin?: string) => kubectl(KUBECTLS[0][1], admin, args, stdin);
    const port = freePort();
    const farmArgs = (storage: string) => [
      "--bind-address",
      "127.0.0.1",
      "--kubeconfig",
      cluster.kubeconfigPath,
      "--cert-dir",
      `${dir}/certs`,
      "--service-name",
      "farm",
      "--service-namespace",
      NS,
      "--apiservice-name",
      APISERVICE,
      "--storage",
      storage,
      "--authorization-cache-ttl-seconds",
      "1",
      "--log-format",
      "text",
    ];
    let farm: FarmProcess | undefined;
    const available = () =>
      poll(`APIService ${APISERVICE} Available=True`, async () => {
        const out = ok(
          await k(["get", "apiservice", APISERVICE, "-o", `jsonpath={.status.conditions[?(@.type=="Available")]}`]),
          "get apiservice",
        );
        return out.includes(`"status":"True"`);
      }, { deadlineMs: 60_000, intervalMs: 500 }).catch(async (e) => {
        const status = await k(["get", "apiservice", APISERVICE, "-o", "yaml"]);
        throw new Error(`${e.message}\n${status.stdout}\nfarm logs:\n${farm?.logs().slice(-3000)}`);
      });
    try {
      await t.step(
        "the APIService from deploy/apiservice/ becomes Available (caBundle set by the server)",
        async () => {
          ok(await k(["create", "namespace", NS]), "create namespace");
          ok(await k(["apply", "-f", "-"], await farmManifests({ serviceName: "farm", namespace: NS, port })), "apply");
          farm = await startFarmProcess(port, farmArgs("configmap"));
          await available();
          const caBundle = ok(
            await k(["get", "apiservice", APISERVICE, "-o", "jsonpath={.spec.caBundle}"]),
            "caBundle",
          );
          assert.equal(atob(caBundle), await Deno.readTextFile(`${dir}/certs/ca.crt`));
        },
      );

      for (const [version, bin] of KUBECTLS) {
        await t.step(`kubectl ${version} reaches the llamas through the aggregator`, async () => {
          const kc = (args: string[], stdin?: string) =>
            kubectl(bin, { ...admin, cacheDir: `${dir}/cache-${version}` }, args, stdin);
          const table = ok(await kc(["get", "llamas"]), "get llamas");
          assert.match(table, /^NAME\s+WEIGHT\s+HEIGHT\s+AGE\n/);
          assert.match(table, /^dolly\s+31\.4\s+0\.5\s+\S+$/m);
          const name = `kuzco-${version.replace(".", "-")}`;
          const llama = {
            apiVersion: "farm.example.com/v1alpha",
            kind: "Llama",
            metadata: { name },
            spec: {
              weight: 42,
              height: 1.5,
            },
          };
          ok(await kc(["create", "-f", "-"], JSON.stringify(llama)), "create llama");
          const got = JSON.parse(ok(await kc(["get", "llama", name, "-o", "json"]), "get llama"));
          assert.deepEqual([got.metadata.namespace, got.spec], ["default", { weight: 42, height: 1.5 }]);
          const invalid = await kc(
            ["create", "-f", "-"],
            JSON.stringify({ ...llama, spec: { weight: -1, height: 1 } }),
          );
          assert.notEqual(invalid.code, 0);
          assert.match(invalid.stderr, /is invalid: spec\.weight/);
          ok(await kc(["delete", "llama", name]), "delete llama");
          const gone = await kc(["get", "llama", name]);
          assert.notEqual(gone.code, 0);
          assert.match(gone.stderr, /NotFound|not found/);

          const resources = ok(await kc(["api-resources", "--api-group=farm.example.com", "--no-headers"]), "api-r");
          assert.match(resources, /^llamas\s+lm\s+farm\.example\.com\/v1alpha\s+true\s+Llama$/m);
          assert.match(resources, /^farmpods\s+fp\s+farm\.example\.com\/v1alpha\s+true\s+FarmPod$/m);
          // explain reads the aggregated /openapi/v3, which the aggregator downloads as "system:aggregator" (no groups).
          const explain = await poll("kubectl explain llamas.spec", async () => {
            const r = await kc(["explain", "llamas.spec"]);
            if (r.code !== 0) throw new Error(r.stderr);
            return r.stdout;
          }, { deadlineMs: 30_000, intervalMs: 500 });
          assert.match(explain, /weight\s+<number>/);
          assert.match(explain, /height\s+<number>/);

          // get -w sees a change made by another client.
          const watcher = new Deno.Command(bin, {
            args: [
              "--kubeconfig",
              admin.kubeconfigPath,
              "--cache-dir",
              `${dir}/cache-${version}`,
              "get",
              "llamas",
              "-w",
            ],
            stdout: "piped",
            stderr: "piped",
          }).spawn();
          const out = collectText(watcher.stdout);
          const err = collectText(watcher.stderr);
          try {
            await poll("watch lists dolly", () => /^dolly\s/m.test(out.text()), { deadlineMs: 20_000 });
            const watched = `watched-${version.replace(".", "-")}`;
            ok(await kc(["create", "-f", "-"], JSON.stringify({ ...llama, metadata: { name: watched } })), "create");
            await poll(`watch sees ${watched}`, () => new RegExp(`^${watched}\\s+42\\s+1\\.5`, "m").test(out.text()), {
              deadlineMs: 20_000,
            }).catch((e) => {
              throw new Error(`${e.message}\nwatch stdout:\n${out.text()}\nstderr:\n${err.text()}`);
            });
            ok(await kc(["delete", "llama", watched]), "delete watched");
          } finally {
            watcher.kill("SIGTERM");
            await watcher.status;
            await Promise.all([out.done, err.done]);
          }
        });
      }

      await t.step("authorization is delegated: 403 without RBAC, 200 after a Role (SubjectAccessReview)", async () => {
        ok(await k(["create", "serviceaccount", "reader", "-n", "default"]), "create sa");
        const token = ok(await k(["create", "token", "reader", "-n", "default"]), "create token").trim();
        const readerPath = `${dir}/reader.kubeconfig`;
        await Deno.writeTextFile(readerPath, rewriteKubeconfig(cluster.kubeconfig, { token }));
        const reader = { kubeconfigPath: readerPath, cacheDir: `${dir}/cache-reader` };
        const user = "system:serviceaccount:default:reader";
        const denied = await kubectl(KUBECTLS[1][1], reader, ["get", "llamas"]);
        assert.notEqual(denied.code, 0);
        assert.match(denied.stderr, /Forbidden|forbidden/);
        assert.match(denied.stderr, /cannot list resource "llamas" in API group "farm\.example\.com"/);

        // The farm server itself asks the real kube-apiserver (SubjectAccessReview): call it directly as the front
        // proxy would, with the aggregator's client certificate and the reader's identity in the headers.
        const client = Deno.createHttpClient({
          caCerts: [await Deno.readTextFile(`${dir}/certs/ca.crt`)],
          cert: await Deno.readTextFile(`${cluster.dir}/front-proxy-client.crt`),
          key: await Deno.readTextFile(`${cluster.dir}/front-proxy-client.key`),
        });
        const direct = async () => {
          const res = await fetch(`https://127.0.0.1:${port}/apis/farm.example.com/v1alpha/namespaces/default/llamas`, {
            client,
            headers: {
              "X-Remote-User": user,
              "X-Remote-Group": "system:serviceaccounts",
              "accept": "application/json",
            },
          });
          return { status: res.status, body: await res.json() };
        };
        try {
          const forbidden = await direct();
          assert.equal(forbidden.status, 403);
          assert.match(forbidden.body.message, /llamas\.farm\.example\.com is forbidden: User "system:serviceaccount/);

          const verbs = ["--verb=get,list,watch", "--resource=llamas.farm.example.com"];
          ok(await k(["create", "role", "llama-reader", "-n", "default", ...verbs]), "role");
          const binding = ["--role=llama-reader", "--serviceaccount=default:reader"];
          ok(await k(["create", "rolebinding", "llama-reader", "-n", "default", ...binding]), "rolebinding");
          const allowed = await poll("reader lists llamas through the aggregator", async () => {
            const r = await kubectl(KUBECTLS[1][1], reader, ["get", "llamas", "-o", "name"]);
            return r.code === 0 ? r.stdout : undefined;
          }, { deadlineMs: 20_000, intervalMs: 300 });
          assert.match(allowed, /llama\.farm\.example\.com\/dolly/);
          const ok200 = await poll("farm answers 200 directly", async () => {
            const r = await direct();
            return r.status === 200 ? r : undefined;
          }, { deadlineMs: 20_000, intervalMs: 300 });
          assert.ok(ok200.body.items.some((l: { metadata: { name: string } }) => l.metadata.name === "dolly"));
          const write = await kubectl(KUBECTLS[1][1], reader, ["delete", "llama", "dolly"]);
          assert.notEqual(write.code, 0, "the Role grants no delete");
          assert.match(write.stderr, /forbidden/);
        } finally {
          client.close();
        }
      });

      await t.step("anonymous callers (issue 27): 403 through kube-apiserver and on the farm's own port", async () => {
        // Through the aggregator, kube-apiserver itself authorizes system:anonymous; on the farm's port the farm
        // server does, with a SubjectAccessReview to the same server: both answer kube's 403 wording.
        const viaKube = Deno.createHttpClient({ caCerts: [await Deno.readTextFile(`${cluster.dir}/ca.crt`)] });
        const farmCA = await Deno.readTextFile(`${dir}/certs/ca.crt`);
        const direct = Deno.createHttpClient({ caCerts: [farmCA] });
        const rogueCA = await createCA({ commonName: "rogue-ca" });
        const rogue = await rogueCA.issue({ commonName: "front-proxy-client", usage: "client" });
        const untrusted = Deno.createHttpClient({ caCerts: [farmCA], cert: rogue.certPEM, key: rogue.keyPEM });
        const answer = async (url: string, client: Deno.HttpClient, headers: Record<string, string> = {}) => {
          const res = await fetch(url, { client, headers: { accept: "application/json", ...headers } });
          const text = await res.text();
          return { status: res.status, text };
        };
        const farmUrl = `https://127.0.0.1:${port}`;
        const dolly = "/apis/farm.example.com/v1alpha/namespaces/default/llamas/dolly";
        try {
          for (const [where, base, client] of [["kube", cluster.url, viaKube], ["farm", farmUrl, direct]] as const) {
            const get = await answer(`${base}${dolly}`, client);
            assert.equal(get.status, 403, `${where}: ${get.text}`);
            assert.match(
              JSON.parse(get.text).message,
              /^llamas\.farm\.example\.com "dolly" is forbidden: User "system:anonymous" cannot get resource "llamas" in API group "farm\.example\.com" in the namespace "default"/,
              where,
            );
            const discovery = await answer(`${base}/apis`, client);
            assert.equal(discovery.status, 403, `${where} /apis: ${discovery.text}`);
            const version = await answer(`${base}/version`, client);
            assert.equal(version.status, 200, `${where} /version: ${version.text}`);
            const health = await answer(`${base}/readyz`, client);
            assert.equal(health.status, 200, `${where} /readyz: ${health.text}`);
            const bad = await answer(`${base}${dolly}`, client, { authorization: "Bearer not-a-token" });
            assert.equal(bad.status, 401, `${where} bad token: ${bad.text}`);
            assert.equal(JSON.parse(bad.text).message, "Unauthorized", where);
          }
          const rogueAnswer = await answer(`${farmUrl}${dolly}`, untrusted, { "X-Remote-User": "system:admin" });
          assert.equal(rogueAnswer.status, 401, rogueAnswer.text);
        } finally {
          viaKube.close();
          direct.close();
          untrusted.close();
        }
      });

      await t.step("FarmPods mirror real Pods as farm-<name>", async () => {
        const pod = {
          apiVersion: "v1",
          kind: "Pod",
          metadata: { name: "web", namespace: "default" },
          spec: {
            containers: [{ name: "a", image: "example.invalid/a" }, { name: "b", image: "example.invalid/b" }],
          },
        };
        ok(await k(["create", "-f", "-"], JSON.stringify(pod)), "create pod");
        const containers = await poll("farmpod farm-web", async () => {
          const r = await k(["get", "farmpod", "farm-web", "-o", "jsonpath={.spec.containers}"]);
          return r.code === 0 ? r.stdout : undefined;
        }, { deadlineMs: 20_000, intervalMs: 300 });
        assert.equal(containers, "2");
        assert.match(ok(await k(["get", "farmpods"]), "get farmpods"), /^farm-web\s/m);
      });

      await t.step("--storage=configmap: llamas survive a restart of the farm server", async () => {
        const llama = {
          apiVersion: "farm.example.com/v1alpha",
          kind: "Llama",
          metadata: { name: "survivor" },
          spec: {
            weight: 7,
            height: 0.7,
          },
        };
        ok(await k(["create", "-f", "-"], JSON.stringify(llama)), "create survivor");
        ok(await k(["delete", "llama", "dolly"]), "delete dolly");
        const cm = ok(await k(["get", "configmap", "farm-llamas", "-n", "kube-system", "-o", "json"]), "cm");
        assert.match(cm, /survivor/);
        assert.equal(await farm!.stop(), 0, "SIGTERM → exit 0");
        farm = undefined;
        farm = await startFarmProcess(port, farmArgs("configmap"));
        const names = await poll("llamas after restart", async () => {
          const r = await k(["get", "llamas", "-o", "jsonpath={.items[*].metadata.name}"]);
          return r.code === 0 ? r.stdout : undefined;
        }, { deadlineMs: 30_000, intervalMs: 300 });
        assert.equal(names, "survivor", "survivor kept, deleted dolly not re-seeded");
        const spec = ok(await k(["get", "llama", "survivor", "-o", "jsonpath={.spec.weight}"]), "get survivor");
        assert.equal(spec, "7");
      });
    } finally {
      await farm?.stop();
      await cluster.stop();
      await bin.remove();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
