/**
 * Records a real kube-apiserver's protobuf ANSWERS (what it sends a client whose Accept prefers
 * `application/vnd.kubernetes.protobuf`) together with the JSON answers for the same objects, into
 * testdata/protobuf/answers/: a Pod, a Deployment, a PodList, a 404 Status, and two watch frames (ADDED, MODIFIED)
 * of a ConfigMap watch. `<name>.pb` holds kube's bytes, `<name>.json` the JSON of the same state (the watch:
 * `watch.jsonl`, one event a line). protobuf_encode_test.ts checks the encoder turns each JSON into kube's bytes.
 *
 *   deno run --allow-all testing/apiserver/testdata/capture_protobuf_answers.ts   # starts a real control plane
 * @module
 */
import { startRealControlPlane } from "../../envtest/real_control_plane.ts";

const outDir = new URL("./protobuf/answers/", import.meta.url).pathname;
const PROTOBUF = "application/vnd.kubernetes.protobuf, application/json";

const POD = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "web", labels: { app: "web", tier: "front" }, annotations: { "example.com/note": "x" } },
  spec: {
    containers: [{
      name: "app",
      image: "nginx:1.27",
      args: ["--port", "8080"],
      ports: [{ name: "http", containerPort: 8080 }],
      env: [{ name: "MODE", value: "prod" }],
      resources: { limits: { cpu: "500m", memory: "128Mi" }, requests: { cpu: "250m", memory: "64Mi" } },
      readinessProbe: { httpGet: { path: "/healthz", port: "http" }, periodSeconds: 5 },
      livenessProbe: { tcpSocket: { port: 8080 } },
    }],
    terminationGracePeriodSeconds: 0,
    tolerations: [{ key: "k", operator: "Exists", effect: "NoSchedule" }],
  },
};

const DEPLOYMENT = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web" },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: "web" } },
    strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: 0 } },
    template: {
      metadata: { labels: { app: "web" } },
      spec: { containers: [{ name: "app", image: "nginx:1.27" }] },
    },
  },
};

const plane = await startRealControlPlane();
try {
  const token = plane.kubeconfig.match(/token: (\S+)/)![1];
  const client = Deno.createHttpClient({ caCerts: [await Deno.readTextFile(`${plane.dir}/ca.crt`)] });
  const request = async (method: string, path: string, accept: string, body?: unknown) => {
    const res = await fetch(`${plane.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, accept, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      client,
    });
    return {
      status: res.status,
      type: res.headers.get("content-type"),
      bytes: new Uint8Array(await res.arrayBuffer()),
    };
  };
  const json = async (method: string, path: string, body?: unknown) =>
    JSON.parse(new TextDecoder().decode((await request(method, path, "application/json", body)).bytes));
  const both = async (name: string, path: string, status: number) => {
    const pb = await request("GET", path, PROTOBUF);
    const js = await request("GET", path, "application/json");
    if (pb.status !== status || js.status !== status) throw new Error(`${path}: ${pb.status}/${js.status}`);
    if (!pb.type?.startsWith("application/vnd.kubernetes.protobuf")) throw new Error(`${path}: ${pb.type}`);
    await Deno.writeFile(`${outDir}${name}.pb`, pb.bytes);
    await Deno.writeFile(`${outDir}${name}.json`, js.bytes);
  };
  await Deno.mkdir(outDir, { recursive: true });
  const ns = "/api/v1/namespaces/default";
  await json("POST", `${ns}/pods`, POD);
  await json("POST", "/apis/apps/v1/namespaces/default/deployments", DEPLOYMENT);
  await both("pod", `${ns}/pods/web`, 200);
  await both("deployment", "/apis/apps/v1/namespaces/default/deployments/web", 200);
  // One revision for both answers (kube-apiserver's own leases move the list's resourceVersion).
  const list = await json("GET", `${ns}/pods`);
  await both("podlist", `${ns}/pods?resourceVersion=${list.metadata.resourceVersion}&resourceVersionMatch=Exact`, 200);
  await both("status-404", `${ns}/pods/missing`, 404);

  // Watch: an ADDED replayed from before the ConfigMap was created, then the MODIFIED of an update.
  const before = (await json("GET", `${ns}/configmaps?limit=1`)).metadata.resourceVersion;
  const cm = await json("POST", `${ns}/configmaps`, { metadata: { name: "c" }, data: { a: "1" } });
  await json("PUT", `${ns}/configmaps/c`, { ...cm, data: { a: "2", b: "3" } });
  const watch = async (accept: string) => {
    const ac = new AbortController();
    const res = await fetch(`${plane.url}${ns}/configmaps?watch=1&resourceVersion=${before}`, {
      headers: { authorization: `Bearer ${token}`, accept },
      client,
      signal: ac.signal,
    });
    const reader = res.body!.getReader();
    let got = new Uint8Array(0);
    const complete = () => {
      if (accept === "application/json") return new TextDecoder().decode(got).split("\n").length > 2;
      let at = 0;
      for (let n = 0; n < 2; n++) {
        if (got.length < at + 4) return false;
        at += 4 + new DataView(got.buffer, got.byteOffset + at).getUint32(0);
      }
      return got.length >= at;
    };
    while (!complete()) {
      const { value, done } = await reader.read();
      if (done) break;
      const next = new Uint8Array(got.length + value.length);
      next.set(got);
      next.set(value, got.length);
      got = next;
    }
    ac.abort();
    return { type: res.headers.get("content-type"), bytes: got };
  };
  const pbWatch = await watch(PROTOBUF);
  if (pbWatch.type !== "application/vnd.kubernetes.protobuf;stream=watch") throw new Error(`watch: ${pbWatch.type}`);
  await Deno.writeFile(`${outDir}watch.pb`, pbWatch.bytes);
  await Deno.writeFile(`${outDir}watch.jsonl`, (await watch("application/json")).bytes);
  client.close();
  // deno fmt's layout for the JSON files (the test parses them; CI checks formatting).
  await new Deno.Command(Deno.execPath(), { args: ["fmt", outDir] }).output();
  console.log(`wrote ${[...Deno.readDirSync(outDir)].length} files to ${outDir}`);
} finally {
  await plane.stop();
}
