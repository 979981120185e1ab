/**
 * Captures the PATCH requests real kubectl sends for `apply` (client-side 3-way strategic merge patch), `edit`
 * (2-way strategic merge patch) and `apply --server-side` against a live Deployment and ConfigMap, and stores
 * them with the live objects in testdata/patches/ so the patch engines can be tested on exactly those bodies.
 *
 *   deno run --allow-all testing/apiserver/testdata/capture_patches.ts /usr/lib/google-cloud-sdk/bin/kubectl.1.32
 * @module
 */

const kubectl = Deno.args[0] ?? "/usr/lib/google-cloud-sdk/bin/kubectl.1.32";
const outDir = new URL("./patches/", import.meta.url).pathname;
const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

const deployV1 = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web", namespace: "default", labels: { app: "web" } },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: "web" } },
    strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 1 } },
    template: {
      metadata: { labels: { app: "web" } },
      spec: {
        containers: [
          {
            name: "web",
            image: "nginx:1.25",
            env: [{ name: "A", value: "1" }, { name: "LOG_LEVEL", value: "debug" }],
            ports: [{ containerPort: 80 }],
          },
          { name: "sidecar", image: "busybox:1.36", command: ["sleep", "infinity"] },
        ],
      },
    },
  },
};
const deployV2 = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web", namespace: "default", labels: { app: "web", tier: "frontend" } },
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: "web" } },
    strategy: { type: "Recreate" },
    template: {
      metadata: { labels: { app: "web" } },
      spec: {
        containers: [{
          name: "web",
          image: "nginx:1.26",
          env: [{ name: "A", value: "1" }, { name: "B", value: "2" }],
          ports: [{ containerPort: 80 }],
        }],
      },
    },
  },
};
const cmV1 = {
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "cfg", namespace: "default" },
  data: { keep: "1", change: "old", drop: "x" },
};
const cmV2 = {
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "cfg", namespace: "default" },
  data: { keep: "1", change: "new", add: "y" },
};

/** What the API server stores after `kubectl apply` of v1: defaults, server metadata, the annotation. */
function liveDeployment() {
  // deno-lint-ignore no-explicit-any
  const live = structuredClone(deployV1) as Record<string, any>;
  live.metadata = {
    ...live.metadata,
    uid: "5e0d7a43-0000-4000-8000-000000000001",
    resourceVersion: "1001",
    generation: 1,
    creationTimestamp: "2025-01-01T00:00:00Z",
    annotations: { "deployment.kubernetes.io/revision": "1", [LAST_APPLIED]: JSON.stringify(deployV1) + "\n" },
  };
  live.spec.revisionHistoryLimit = 10;
  live.spec.progressDeadlineSeconds = 600;
  live.spec.strategy.rollingUpdate.maxUnavailable = "25%";
  const pod = live.spec.template.spec;
  Object.assign(pod, {
    restartPolicy: "Always",
    terminationGracePeriodSeconds: 30,
    dnsPolicy: "ClusterFirst",
    securityContext: {},
    schedulerName: "default-scheduler",
  });
  for (const c of pod.containers) {
    Object.assign(c, {
      resources: {},
      terminationMessagePath: "/dev/termination-log",
      terminationMessagePolicy: "File",
      imagePullPolicy: "IfNotPresent",
    });
    for (const p of c.ports ?? []) p.protocol = "TCP";
  }
  live.status = { observedGeneration: 1, replicas: 2, readyReplicas: 2, availableReplicas: 2, updatedReplicas: 2 };
  return live;
}
function liveConfigMap() {
  return {
    ...structuredClone(cmV1),
    metadata: {
      ...cmV1.metadata,
      uid: "5e0d7a43-0000-4000-8000-000000000002",
      resourceVersion: "1002",
      creationTimestamp: "2025-01-01T00:00:00Z",
      annotations: { [LAST_APPLIED]: JSON.stringify(cmV1) + "\n" },
    },
  };
}

const resource = (name: string, kind: string) => ({
  name,
  singularName: kind.toLowerCase(),
  namespaced: true,
  kind,
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
});
const DISCOVERY: Record<string, unknown> = {
  "/api": { kind: "APIVersions", versions: ["v1"], serverAddressByClientCIDRs: [] },
  "/apis": {
    kind: "APIGroupList",
    apiVersion: "v1",
    groups: [{
      name: "apps",
      versions: [{ groupVersion: "apps/v1", version: "v1" }],
      preferredVersion: { groupVersion: "apps/v1", version: "v1" },
    }],
  },
  "/api/v1": { kind: "APIResourceList", groupVersion: "v1", resources: [resource("configmaps", "ConfigMap")] },
  "/apis/apps/v1": {
    kind: "APIResourceList",
    groupVersion: "apps/v1",
    resources: [resource("deployments", "Deployment")],
  },
  "/version": { major: "1", minor: "32", gitVersion: "v1.32.0", platform: "linux/amd64" },
};

let objects: Record<string, unknown> = {};
const captured: { method: string; path: string; query: string; contentType: string; body: string }[] = [];
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
  const url = new URL(req.url);
  if (req.method === "PATCH" || req.method === "POST" || req.method === "PUT") {
    captured.push({
      method: req.method,
      path: url.pathname,
      query: url.search,
      contentType: req.headers.get("content-type") ?? "",
      body: await req.text(),
    });
    return Response.json(objects[url.pathname] ?? {});
  }
  const doc = DISCOVERY[url.pathname] ?? objects[url.pathname];
  return doc ? Response.json(doc) : Response.json({
    kind: "Status",
    apiVersion: "v1",
    status: "Failure",
    code: 404,
    reason: "NotFound",
    metadata: {},
  }, { status: 404 });
});

const tmp = await Deno.makeTempDir();
const kubeconfig = `${tmp}/config`;
await Deno.writeTextFile(
  kubeconfig,
  `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "http://127.0.0.1:${server.addr.port}"}}]\n` +
    `users: [{name: u, user: {}}]\ncontexts: [{name: c, context: {cluster: c, user: u, namespace: default}}]\ncurrent-context: c\n`,
);
await Deno.writeTextFile(`${tmp}/deploy-v2.json`, JSON.stringify(deployV2));
await Deno.writeTextFile(`${tmp}/cm-v2.json`, JSON.stringify(cmV2));
await Deno.writeTextFile(
  `${tmp}/editor.sh`,
  `#!/bin/sh\nsed -i -e 's/image: nginx:1.25/image: nginx:1.26/' -e 's/replicas: 2/replicas: 4/' "$1"\n`,
);
await Deno.chmod(`${tmp}/editor.sh`, 0o755);

const DEPLOY_PATH = "/apis/apps/v1/namespaces/default/deployments/web";
const CM_PATH = "/api/v1/namespaces/default/configmaps/cfg";
const CASES: { name: string; args: string[]; live: () => Record<string, unknown>; path: string; manifest?: unknown }[] =
  [
    {
      name: "apply-deployment",
      args: ["apply", "-f", `${tmp}/deploy-v2.json`, "--validate=false"],
      live: liveDeployment,
      path: DEPLOY_PATH,
      manifest: deployV2,
    },
    {
      name: "apply-configmap",
      args: ["apply", "-f", `${tmp}/cm-v2.json`, "--validate=false"],
      live: liveConfigMap,
      path: CM_PATH,
      manifest: cmV2,
    },
    {
      name: "edit-deployment",
      args: ["edit", "deployment", "web", "--validate=false"],
      live: liveDeployment,
      path: DEPLOY_PATH,
    },
    {
      name: "ssa-deployment",
      args: ["apply", "--server-side", "-f", `${tmp}/deploy-v2.json`, "--validate=false"],
      live: liveDeployment,
      path: DEPLOY_PATH,
      manifest: deployV2,
    },
  ];
await Deno.mkdir(outDir, { recursive: true });
for (const c of CASES) {
  const live = c.live();
  objects = { [c.path]: live };
  const before = captured.length;
  const out = await new Deno.Command(kubectl, {
    args: [...c.args, "--kubeconfig", kubeconfig, "--cache-dir", `${tmp}/cache`],
    env: { KUBE_EDITOR: `${tmp}/editor.sh` },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const got = captured.slice(before).filter((r) => r.method === "PATCH");
  console.log(
    c.name,
    out.code,
    new TextDecoder().decode(out.stdout).trim(),
    new TextDecoder().decode(out.stderr).trim(),
    got.map((g) => `${g.contentType} ${g.query}`),
  );
  if (got.length === 0) continue;
  const fixture = {
    command: `kubectl ${c.args.join(" ").replaceAll(tmp, ".")}`,
    contentType: got[0].contentType,
    query: got[0].query,
    live,
    manifest: c.manifest,
    patch: JSON.parse(got[0].body),
  };
  await Deno.writeTextFile(`${outDir}/${c.name}.json`, JSON.stringify(fixture, null, 2) + "\n");
}
await server.shutdown();
await Deno.remove(tmp, { recursive: true });
