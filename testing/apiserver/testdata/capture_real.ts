/**
 * Captures what a real kube-apiserver (built by scripts/k8s-bin.sh) answers, as fixtures for the unit tests of
 * table.ts, schema.ts and patch/apply.ts: Table JSON for built-in kinds and a CRD with printer columns, 422 bodies
 * for schema violations, and server-side-apply managedFields and conflict bodies. Stored in testdata/real/.
 *
 *   deno run --allow-all testing/apiserver/testdata/capture_real.ts
 * @module
 */

import { eventually } from "../../eventually.ts";
import { startRealCluster } from "../../../tests/support/real_cluster.ts";

const outDir = new URL("./real/", import.meta.url).pathname;
const cluster = await startRealCluster();
const token = (await Deno.readTextFile(`${cluster.dir}/tokens.csv`)).split(",")[0];
const client = Deno.createHttpClient({ caCerts: [await Deno.readTextFile(`${cluster.dir}/ca.crt`)] });
const TABLE =
  "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${cluster.url}${path}`, {
    method,
    client,
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json",
      ...headers,
    },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch { /* not JSON */ }
  // deno-lint-ignore no-explicit-any
  return { status: res.status, date: res.headers.get("date"), body: parsed as any };
}
const fixtures: Record<string, unknown> = {};
try {
  await eventually("default namespace", async () => (await call("GET", "/api/v1/namespaces/default")).status === 200, {
    timeoutMs: 60_000,
    intervalMs: 200,
  });
  const ns = "cap";
  await call("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
  const creates: [string, unknown][] = [
    [`/api/v1/namespaces/${ns}/configmaps`, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "cfg" },
      data: { a: "1", b: "2" },
      binaryData: { c: "AA==" },
    }],
    [`/api/v1/namespaces/${ns}/secrets`, {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "sec" },
      type: "kubernetes.io/tls",
      data: { "tls.crt": "", "tls.key": "" },
    }],
    [`/api/v1/namespaces/${ns}/services`, {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "web" },
      spec: {
        type: "NodePort",
        selector: { app: "web", tier: "a" },
        ports: [{ name: "http", port: 80, targetPort: 8080, nodePort: 30080 }, {
          name: "dns",
          port: 53,
          protocol: "UDP",
        }],
      },
    }],
    [`/api/v1/namespaces/${ns}/pods`, {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p" },
      spec: { containers: [{ name: "c", image: "busybox" }, { name: "d", image: "busybox" }] },
    }],
    [`/api/v1/namespaces/${ns}/serviceaccounts`, {
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name: "robot" },
    }],
    [`/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`, {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: "lock" },
      spec: { holderIdentity: "me" },
    }],
    [`/apis/apps/v1/namespaces/${ns}/deployments`, {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "dep" },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: "dep" } },
        template: {
          metadata: { labels: { app: "dep" } },
          spec: { containers: [{ name: "web", image: "nginx:1.27" }, { name: "side", image: "busybox" }] },
        },
      },
    }],
    [`/api/v1/namespaces/${ns}/events`, {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: "ev" },
      involvedObject: { kind: "Pod", name: "p", namespace: ns, fieldPath: "spec.containers{c}" },
      reason: "Pulled",
      message: "Container image pulled",
      type: "Normal",
      source: { component: "kubelet", host: "node-1" },
      count: 3,
      firstTimestamp: "2025-01-01T00:00:00Z",
      lastTimestamp: "2025-01-01T00:05:00Z",
    }],
  ];
  for (const [path, obj] of creates) {
    const r = await call("POST", path, obj);
    if (r.status >= 300) throw new Error(`create ${path}: ${JSON.stringify(r.body)}`);
  }
  const tables: [string, string][] = [
    ["configmaps", `/api/v1/namespaces/${ns}/configmaps`],
    ["secrets", `/api/v1/namespaces/${ns}/secrets`],
    ["services", `/api/v1/namespaces/${ns}/services`],
    ["pods", `/api/v1/namespaces/${ns}/pods`],
    ["serviceaccounts", `/api/v1/namespaces/${ns}/serviceaccounts`],
    ["leases", `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`],
    ["deployments", `/apis/apps/v1/namespaces/${ns}/deployments`],
    ["events", `/api/v1/namespaces/${ns}/events`],
    ["namespaces", `/api/v1/namespaces`],
  ];

  // A CRD with printer columns and a schema.
  const crd = {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "foos.example.com" },
    spec: {
      group: "example.com",
      scope: "Namespaced",
      names: { plural: "foos", singular: "foo", kind: "Foo", listKind: "FooList" },
      versions: [{
        name: "v1",
        served: true,
        storage: true,
        subresources: { status: {} },
        additionalPrinterColumns: [
          { name: "Size", type: "integer", jsonPath: ".spec.size" },
          { name: "Ready", type: "string", jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
          { name: "Tags", type: "string", jsonPath: ".spec.tags" },
          { name: "Ratio", type: "number", jsonPath: ".spec.ratio", priority: 1 },
          { name: "On", type: "boolean", jsonPath: ".spec.on" },
          { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
        ],
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: {
                type: "object",
                required: ["size"],
                properties: {
                  size: { type: "integer", minimum: 1, maximum: 100 },
                  mode: { type: "string", enum: ["up", "down"], default: "up" },
                  name: { type: "string", minLength: 2, maxLength: 5, pattern: "^[a-z]+$" },
                  tags: { type: "array", items: { type: "string" }, maxItems: 2 },
                  ratio: { type: "number" },
                  on: { type: "boolean" },
                  when: { type: "string", format: "date-time" },
                  port: { "x-kubernetes-int-or-string": true },
                },
              },
              status: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
            },
          },
        },
      }],
    },
  };
  fixtures.crd = crd;
  await call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd);
  await eventually("CRD established", async () => {
    const r = await call("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/foos.example.com");
    return (r.body?.status?.conditions ?? []).some((c: { type: string; status: string }) =>
      c.type === "Established" && c.status === "True"
    );
  }, { timeoutMs: 60_000, intervalMs: 200 });
  await eventually(
    "CRD served",
    async () => (await call("GET", `/apis/example.com/v1/namespaces/${ns}/foos`)).status === 200,
    { timeoutMs: 60_000, intervalMs: 200 },
  );
  const foo = {
    apiVersion: "example.com/v1",
    kind: "Foo",
    metadata: { name: "a" },
    spec: { size: 3, tags: ["x", "y"], ratio: 0.5, on: true, extra: 1 },
  };
  fixtures.createdFoo = (await call("POST", `/apis/example.com/v1/namespaces/${ns}/foos`, foo)).body;
  await call("POST", `/apis/example.com/v1/namespaces/${ns}/foos`, {
    apiVersion: "example.com/v1",
    kind: "Foo",
    metadata: { name: "b" },
    spec: { size: 1 },
  });
  tables.push(["foos", `/apis/example.com/v1/namespaces/${ns}/foos`], [
    "customresourcedefinitions",
    "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
  ]);

  for (const [name, path] of tables) {
    const r = await call("GET", `${path}?includeObject=Object`, undefined, { accept: TABLE });
    fixtures[`table:${name}`] = { date: r.date, table: r.body };
  }

  const invalid: Record<string, unknown> = {
    missing: {},
    bounds: { size: 1000 },
    several: { size: 0, mode: "left", name: "ABCDEFG", tags: ["a", "b", "c"], when: "yesterday", port: true },
    types: { size: "three", ratio: "x", on: "yes" },
  };
  for (const [name, spec] of Object.entries(invalid)) {
    const r = await call("POST", `/apis/example.com/v1/namespaces/${ns}/foos`, {
      apiVersion: "example.com/v1",
      kind: "Foo",
      metadata: { name: `bad-${name}` },
      spec,
    });
    fixtures[`invalid:${name}`] = { spec, status: r.status, body: r.body };
  }

  // Server-side apply.
  const applyPath = `/api/v1/namespaces/${ns}/configmaps/ssa`;
  const apply = (manager: string, body: unknown, force = false) =>
    call("PATCH", `${applyPath}?fieldManager=${manager}${force ? "&force=true" : ""}`, body, {
      "content-type": "application/apply-patch+yaml",
    });
  const cm = (data: Record<string, string>) => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "ssa", labels: { app: "x" } },
    data,
  });
  fixtures["ssa:create"] = await apply("alpha", cm({ a: "1", b: "1" }));
  fixtures["ssa:beta"] = await apply("beta", cm({ c: "1" }));
  fixtures["ssa:conflict1"] = await apply("gamma", cm({ a: "2" }));
  fixtures["ssa:conflict2"] = await apply("gamma", cm({ a: "2", c: "2" }));
  fixtures["ssa:update"] = await call("PATCH", `${applyPath}?fieldManager=editor`, { data: { b: "9" } }, {
    "content-type": "application/merge-patch+json",
  });
  fixtures["ssa:conflictUpdate"] = await apply("alpha", cm({ a: "1", b: "1" }));
  fixtures["ssa:drop"] = await apply("alpha", cm({ a: "1" }));
  const dep = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "ssa-dep" },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: "s" } },
      template: {
        metadata: { labels: { app: "s" } },
        spec: {
          containers: [{
            name: "web",
            image: "nginx",
            ports: [{ containerPort: 80 }],
            env: [{ name: "A", value: "1" }],
          }],
          volumes: [{ name: "v", emptyDir: {} }],
        },
      },
    },
  };
  fixtures["ssa:deployment"] = await call(
    "PATCH",
    `/apis/apps/v1/namespaces/${ns}/deployments/ssa-dep?fieldManager=kubectl`,
    dep,
    { "content-type": "application/apply-patch+yaml" },
  );

  // The strategic merge patches kubectl sent (testdata/patches/), applied by the real server to the same objects.
  for (const name of ["apply-deployment", "apply-configmap", "edit-deployment"]) {
    const f = JSON.parse(await Deno.readTextFile(new URL(`./patches/${name}.json`, import.meta.url)));
    const space = `smp-${name}`;
    await call("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: space } });
    const obj = structuredClone(f.live);
    for (const k of ["uid", "resourceVersion", "creationTimestamp", "generation"]) delete obj.metadata[k];
    delete obj.status;
    obj.metadata.namespace = space;
    const base = obj.kind === "Deployment"
      ? `/apis/apps/v1/namespaces/${space}/deployments`
      : `/api/v1/namespaces/${space}/configmaps`;
    const created = await call("POST", base, obj);
    if (created.status >= 300) throw new Error(`create for ${name}: ${JSON.stringify(created.body)}`);
    const patched = await call("PATCH", `${base}/${obj.metadata.name}`, f.patch, { "content-type": f.contentType });
    fixtures[`smp:${name}`] = { before: created.body, after: patched.body, status: patched.status };
  }
} finally {
  await Deno.mkdir(outDir, { recursive: true });
  await Deno.writeTextFile(`${outDir}/fixtures.json`, JSON.stringify(fixtures, null, 1) + "\n");
  client.close();
  await cluster.stop();
}
