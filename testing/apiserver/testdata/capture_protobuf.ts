/**
 * Captures the protobuf request bodies real kubectl sends for `kubectl create <generator>` and stores them as test
 * fixtures in testdata/protobuf/ (`<name>.pb` plus `<name>.json` with the Content-Type). A minimal discovery-only
 * server on 127.0.0.1 answers kubectl; every POST body is recorded.
 *
 *   deno run --allow-all testing/apiserver/testdata/capture_protobuf.ts /usr/lib/google-cloud-sdk/bin/kubectl.1.32
 * @module
 */

const kubectl = Deno.args[0] ?? "/usr/lib/google-cloud-sdk/bin/kubectl.1.32";
const outDir = new URL("./protobuf/", import.meta.url).pathname;

const resource = (name: string, kind: string, namespaced: boolean) => ({
  name,
  singularName: kind.toLowerCase(),
  namespaced,
  kind,
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
});
const DISCOVERY: Record<string, unknown> = {
  "/api": { kind: "APIVersions", versions: ["v1"], serverAddressByClientCIDRs: [] },
  "/apis": {
    kind: "APIGroupList",
    apiVersion: "v1",
    groups: [
      {
        name: "apps",
        versions: [{ groupVersion: "apps/v1", version: "v1" }],
        preferredVersion: { groupVersion: "apps/v1", version: "v1" },
      },
      {
        name: "rbac.authorization.k8s.io",
        versions: [{ groupVersion: "rbac.authorization.k8s.io/v1", version: "v1" }],
        preferredVersion: { groupVersion: "rbac.authorization.k8s.io/v1", version: "v1" },
      },
    ],
  },
  "/api/v1": {
    kind: "APIResourceList",
    groupVersion: "v1",
    resources: [
      resource("namespaces", "Namespace", false),
      resource("configmaps", "ConfigMap", true),
      resource("secrets", "Secret", true),
      resource("serviceaccounts", "ServiceAccount", true),
      resource("services", "Service", true),
      resource("pods", "Pod", true),
    ],
  },
  "/apis/apps/v1": {
    kind: "APIResourceList",
    groupVersion: "apps/v1",
    resources: [resource("deployments", "Deployment", true)],
  },
  "/apis/rbac.authorization.k8s.io/v1": {
    kind: "APIResourceList",
    groupVersion: "rbac.authorization.k8s.io/v1",
    resources: [resource("roles", "Role", true), resource("rolebindings", "RoleBinding", true)],
  },
  "/version": { major: "1", minor: "32", gitVersion: "v1.32.0", platform: "linux/amd64" },
};

const captured: { path: string; contentType: string; body: Uint8Array }[] = [];
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
  const url = new URL(req.url);
  if (req.method === "POST") {
    const body = new Uint8Array(await req.arrayBuffer());
    captured.push({ path: url.pathname, contentType: req.headers.get("content-type") ?? "", body });
    const plural = url.pathname.split("/").pop()!;
    return Response.json({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Success",
      code: 201,
      details: { name: plural },
    }, { status: 201 });
  }
  const doc = DISCOVERY[url.pathname];
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

const COMMANDS: [string, string[]][] = [
  ["namespace", ["create", "namespace", "foo"]],
  ["configmap", ["create", "configmap", "x", "--from-literal=a=b", "--from-literal=empty="]],
  ["secret", ["create", "secret", "generic", "s", "--from-literal=k=v"]],
  ["serviceaccount", ["create", "serviceaccount", "sa"]],
  ["deployment", ["create", "deployment", "web", "--image=nginx:1.27", "--replicas=2", "--port=80"]],
  ["role", ["create", "role", "r", "--verb=get,list", "--resource=pods"]],
  ["service", ["create", "service", "clusterip", "svc", "--tcp=80:8080"]],
];
await Deno.mkdir(outDir, { recursive: true });
for (const [name, args] of COMMANDS) {
  const before = captured.length;
  const out = await new Deno.Command(kubectl, {
    args: [...args, "--kubeconfig", kubeconfig, "--cache-dir", `${tmp}/cache`, "--validate=false"],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const got = captured.slice(before);
  console.log(
    name,
    out.code,
    new TextDecoder().decode(out.stderr).trim(),
    got.map((c) => `${c.path} ${c.contentType} ${c.body.length}B`),
  );
  if (got.length > 0) {
    await Deno.writeFile(`${outDir}/${name}.pb`, got[0].body);
    await Deno.writeTextFile(
      `${outDir}/${name}.json`,
      JSON.stringify(
        { command: `kubectl ${args.join(" ")}`, path: got[0].path, contentType: got[0].contentType },
        null,
        2,
      ) + "\n",
    );
  }
}
await server.shutdown();
await Deno.remove(tmp, { recursive: true });
