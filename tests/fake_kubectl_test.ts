import assert from "node:assert/strict";
import { startDev } from "../cli/dev.ts";

const KUBECTL = "/usr/lib/google-cloud-sdk/bin/kubectl.1.32";
const KUBECTL_135 = new URL("../.cache/clients/kubectl", import.meta.url).pathname;

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wd]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, description: How big the widget is., maximum: 10}
`;

const WIDGET = `apiVersion: example.com/v1
kind: Widget
metadata: {name: w1}
spec: {size: 3}
`;

async function withDev(
  binary: string,
  fn: (
    kubectl: (args: string[], stdin?: string) => Promise<{ code: number; out: string; err: string }>,
    watchOutput: (args: string[]) => { waitFor(re: RegExp): Promise<void>; stop(): Promise<void> },
  ) => Promise<void>,
) {
  const dir = await Deno.makeTempDir();
  const dev = await startDev({ kubeconfigOut: `${dir}/kubeconfig`, kubelet: false });
  const kubectl = async (args: string[], stdin?: string) => {
    const cmd = new Deno.Command(binary, {
      args: ["--kubeconfig", dev.kubeconfigPath, "--cache-dir", `${dir}/cache`, ...args],
      stdin: stdin === undefined ? "null" : "piped",
      stdout: "piped",
      stderr: "piped",
      env: { KUBE_EDITOR: `${dir}/editor.sh` },
    });
    const child = cmd.spawn();
    if (stdin !== undefined) {
      const w = child.stdin.getWriter();
      await w.write(new TextEncoder().encode(stdin));
      await w.close();
    }
    const res = await child.output();
    const dec = new TextDecoder();
    return { code: res.code, out: dec.decode(res.stdout), err: dec.decode(res.stderr) };
  };
  const watchOutput = (args: string[]) => {
    const child = new Deno.Command(binary, {
      args: ["--kubeconfig", dev.kubeconfigPath, "--cache-dir", `${dir}/cache`, ...args],
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let seen = "";
    return {
      async waitFor(re: RegExp) {
        while (!re.test(seen)) {
          const { value, done } = await reader.read();
          if (done) throw new Error(`stream ended before ${re}: ${seen}`);
          seen += value;
        }
      },
      async stop() {
        child.kill("SIGTERM");
        await reader.cancel().catch(() => {});
        await child.status;
      },
    };
  };
  try {
    await Deno.writeTextFile(`${dir}/editor.sh`, '#!/bin/sh\nsed -i "s/size: 5/size: 7/" "$1"\n', { mode: 0o755 });
    await fn(kubectl, watchOutput);
  } finally {
    await dev.stop();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test({
  name: "kubectl 1.32 against kubeop dev: create -f, get (Table), apply, patch, edit, label, explain, delete",
  ignore: !exists(KUBECTL),
  fn: () =>
    withDev(KUBECTL, async (kubectl, watchOutput) => {
      const ns = await kubectl(["get", "namespaces"]);
      assert.equal(ns.code, 0, ns.err);
      assert.match(ns.out, /^NAME\s+STATUS\s+AGE/);
      assert.match(ns.out, /default\s+Active/);
      const cm = await kubectl(
        ["create", "-f", "-"],
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c1}\ndata: {k: v}\n",
      );
      assert.equal(cm.code, 0, cm.err);
      assert.match(cm.out, /configmap\/c1 created/);
      const got = await kubectl(["get", "configmap", "c1", "-o", "yaml"]);
      assert.match(got.out, /k: v/);
      assert.doesNotMatch(got.out, /managedFields/);
      const crd = await kubectl(["apply", "-f", "-"], CRD);
      assert.equal(crd.code, 0, crd.err);
      const established = await kubectl([
        "wait",
        "--for=condition=Established",
        "crd/widgets.example.com",
        "--timeout=10s",
      ]);
      assert.equal(established.code, 0, established.err);
      const w = await kubectl(["apply", "-f", "-"], WIDGET);
      assert.equal(w.code, 0, w.err);
      const table = await kubectl(["get", "wd"]);
      assert.match(table.out, /^NAME\s+SIZE\s*\nw1\s+3/);
      const merge = await kubectl(["patch", "wd", "w1", "--type", "merge", "-p", '{"spec":{"size":4}}']);
      assert.equal(merge.code, 0, merge.err);
      const json = await kubectl([
        "patch",
        "wd",
        "w1",
        "--type",
        "json",
        "-p",
        '[{"op":"replace","path":"/spec/size","value":5}]',
      ]);
      assert.equal(json.code, 0, json.err);
      const edit = await kubectl(["edit", "wd", "w1"]);
      assert.equal(edit.code, 0, edit.err);
      const size = await kubectl(["get", "wd", "w1", "-o", "jsonpath={.spec.size}"]);
      assert.equal(size.out, "7");
      const invalid = await kubectl(["patch", "wd", "w1", "--type", "merge", "-p", '{"spec":{"size":40}}']);
      assert.equal(invalid.code, 1);
      assert.match(invalid.err, /spec\.size/);
      const label = await kubectl(["label", "wd", "w1", "tier=web"]);
      assert.equal(label.code, 0, label.err);
      assert.match((await kubectl(["get", "wd", "-l", "tier=web", "-o", "name"])).out, /widget.example.com\/w1/);
      const explain = await kubectl(["explain", "widget.spec.size"]);
      assert.equal(explain.code, 0, explain.err);
      assert.match(explain.out, /How big the widget is/);
      const resources = await kubectl(["api-resources"]);
      assert.match(resources.out, /widgets\s+wd\s+example.com\/v1\s+true\s+Widget/);
      const canI = await kubectl(["auth", "can-i", "get", "pods"]);
      assert.equal(canI.out.trim(), "yes", canI.err);
      const describe = await kubectl(["describe", "wd", "w1"]);
      assert.match(describe.out, /Events:\s+<none>/);
      const watcher = watchOutput(["get", "wd", "-w"]);
      await watcher.waitFor(/w1\s+7/);
      const bump = await kubectl(["patch", "wd", "w1", "--type", "merge", "-p", '{"spec":{"size":8}}']);
      assert.equal(bump.code, 0, bump.err);
      await watcher.waitFor(/w1\s+8/);
      await watcher.stop();
      const ssa = await kubectl(["apply", "--server-side", "--force-conflicts", "-f", "-"], WIDGET);
      assert.equal(ssa.code, 0, ssa.err);
      const del = await kubectl(["delete", "wd", "w1", "--wait"]);
      assert.equal(del.code, 0, del.err);
      const gone = await kubectl(["get", "wd", "w1"]);
      assert.equal(gone.code, 1);
      assert.match(gone.err, /NotFound/);
    }),
});

Deno.test({
  name: "kubectl 1.35 against kubeop dev: delete --wait (WatchList) and get",
  ignore: !exists(KUBECTL_135),
  fn: () =>
    withDev(KUBECTL_135, async (kubectl) => {
      const cm = await kubectl(["create", "-f", "-"], "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c1}\n");
      assert.equal(cm.code, 0, cm.err);
      const del = await kubectl(["delete", "configmap", "c1", "--wait", "--timeout=10s"]);
      assert.equal(del.code, 0, del.err);
      assert.match(del.out, /deleted/);
    }),
});

const HELM = new URL("../.cache/clients/helm", import.meta.url).pathname;

Deno.test({
  name: "Helm 4 installs, upgrades and uninstalls a chart of core kinds against kubeop dev",
  ignore: !exists(HELM),
  fn: async () => {
    const dir = await Deno.makeTempDir();
    const dev = await startDev({ kubeconfigOut: `${dir}/kubeconfig`, kubelet: false });
    try {
      await Deno.mkdir(`${dir}/chart/templates`, { recursive: true });
      await Deno.writeTextFile(`${dir}/chart/Chart.yaml`, "apiVersion: v2\nname: demo\nversion: 0.1.0\n");
      await Deno.writeTextFile(`${dir}/chart/values.yaml`, "v: one\n");
      await Deno.writeTextFile(
        `${dir}/chart/templates/all.yaml`,
        `apiVersion: v1
kind: ConfigMap
metadata: {name: "{{ .Release.Name }}-cfg"}
data: {v: "{{ .Values.v }}"}
---
apiVersion: v1
kind: Service
metadata: {name: "{{ .Release.Name }}-svc"}
spec: {ports: [{port: 80}]}
---
apiVersion: v1
kind: Secret
metadata: {name: "{{ .Release.Name }}-sec"}
stringData: {a: b}
`,
      );
      const helm = async (args: string[]) => {
        const res = await new Deno.Command(HELM, {
          args,
          stdout: "piped",
          stderr: "piped",
          env: {
            KUBECONFIG: dev.kubeconfigPath,
            HELM_CACHE_HOME: `${dir}/hc`,
            HELM_CONFIG_HOME: `${dir}/hcfg`,
            HELM_DATA_HOME: `${dir}/hd`,
          },
        }).output();
        return { code: res.code, out: new TextDecoder().decode(res.stdout), err: new TextDecoder().decode(res.stderr) };
      };
      const cm = { group: "", version: "v1", plural: "configmaps" };
      const install = await helm(["install", "r1", `${dir}/chart`, "--wait", "--timeout", "30s"]);
      assert.equal(install.code, 0, install.err);
      assert.equal(dev.server.store.get(cm, "r1-cfg", { namespace: "default" }).data.v, "one");
      const upgrade = await helm(["upgrade", "r1", `${dir}/chart`, "--set", "v=two", "--wait", "--timeout", "30s"]);
      assert.equal(upgrade.code, 0, upgrade.err);
      assert.equal(dev.server.store.get(cm, "r1-cfg", { namespace: "default" }).data.v, "two");
      const uninstall = await helm(["uninstall", "r1", "--wait"]);
      assert.equal(uninstall.code, 0, uninstall.err);
      // only the namespace's own kube-root-ca.crt is left (kubeop dev creates it, as a real cluster does)
      const left = dev.server.store.list(cm, { namespace: "default" }).items.map((o) => o.metadata.name);
      assert.deepEqual(left, ["kube-root-ca.crt"]);
      const secrets = dev.server.store.list({ group: "", version: "v1", plural: "secrets" }, { namespace: "default" });
      assert.equal(secrets.items.length, 0, "release secrets removed");
    } finally {
      await dev.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
