/**
 * The connect subresources kube-apiserver serves by reaching a kubelet or an endpoint — pods/exec, pods/attach,
 * pods/portforward, pods/log, pods/proxy, nodes/proxy, services/proxy — answered as kube-apiserver v1.37.2 answers
 * them up to the point where it would dial out (tests/conformance/streaming_subresources.ts pins each on a real
 * control plane without kubelets):
 *
 * - the pod is read first (404 `pods "x" not found`), then its container (400 `a container name must be specified
 *   for pod p, choose one of: [a b]` / `container c is not valid for pod p`);
 * - a pod with no `spec.nodeName`: exec, attach, portforward are 400 `pod p does not have a host assigned`; log is 204
 *   with no body;
 * - the pod's Node missing: 404 `pods "<node>" not found` (kube's node getter names the wrong resource); a Node with no
 *   address of a preferred type (Hostname, InternalDNS, InternalIP, ExternalDNS, ExternalIP): 500 without reason
 *   `no preferred addresses found; known addresses: [{InternalIP 10.0.0.1}]`;
 * - then exec/attach/portforward without `Connection: Upgrade` are 400 `Upgrade request required`; with it, and a log
 *   of a Node the fake kubelet does not run, the dial fails as kube's does against a kubelet that is not there (500);
 *   a log of the fake kubelet's Node is its text (kubelet.ts);
 * - pods/proxy of a pod without an IP, nodes/proxy of a loopback address: 400 `address not allowed`; nodes/proxy of a
 *   missing Node: 404 `nodes "x" not found`; services/proxy with no ready Endpoints address (or no Service): 503
 *   ServiceUnavailable `no endpoints available for service "s"`.
 * @module
 */
import { ApiError, failureStatus } from "../../runtime/client/errors.ts";
import type { KubeObject } from "../../runtime/types.ts";
import type { FakeStore } from "./commit_path.ts";
import type { ResourceRoute } from "./http_resources.ts";
import type { FakeKubelet } from "./kubelet.ts";
import { badRequest, methodNotAllowed, notFound } from "./status_errors.ts";

type Handler = (req: Request, route: ResourceRoute, url: URL) => Promise<Response>;
type Json = Record<string, unknown>;

const NODES = { group: "", version: "v1", plural: "nodes", kind: "Node" };
const PODS = { group: "", version: "v1", plural: "pods", kind: "Pod" };
const ENDPOINTS = { group: "", version: "v1", plural: "endpoints", kind: "Endpoints" };
const PREFERRED_ADDRESS_TYPES = ["Hostname", "InternalDNS", "InternalIP", "ExternalDNS", "ExternalIP"];

const status = (code: number, reason: string | undefined, message: string, verb: string) => {
  const s = failureStatus(code, reason ?? "", message);
  if (!reason) delete (s as { reason?: string }).reason;
  return new ApiError(s, { verb });
};

/** `[scheme:]name[:port]` of a proxy path: the object's name. */
const proxiedName = (name: string) => {
  const parts = name.split(":");
  return parts.length === 3 ? parts[1] : parts[0];
};

/** The container a request names (or the pod's only one), checked as kube's streamLocation does. */
function container(pod: KubeObject, url: URL): string {
  const spec = (pod.spec ?? {}) as { containers?: Json[]; initContainers?: Json[]; ephemeralContainers?: Json[] };
  const names = (list?: Json[]) => (list ?? []).map((c) => String(c.name));
  const name = url.searchParams.get("container");
  if (!name) {
    if (names(spec.containers).length === 1) return names(spec.containers)[0];
    const all = [...names(spec.initContainers), ...names(spec.containers)];
    throw badRequest(
      `a container name must be specified for pod ${pod.metadata.name}, choose one of: [${all.join(" ")}]`,
      "get",
    );
  }
  const known = [...names(spec.containers), ...names(spec.initContainers), ...names(spec.ephemeralContainers)];
  if (!known.includes(name)) throw badRequest(`container ${name} is not valid for pod ${pod.metadata.name}`, "get");
  return name;
}

/** The kubelet address of Node `name`, as kube's NodeConnectionInfoGetter resolves it. */
function kubeletAddress(store: FakeStore, name: string, missing: "pods" | "nodes"): { host: string; port: number } {
  let node: KubeObject;
  try {
    node = store.get(NODES, name);
  } catch {
    throw notFound(missing === "pods" ? PODS : NODES, name);
  }
  const st = (node.status ?? {}) as {
    addresses?: { type: string; address: string }[];
    daemonEndpoints?: { kubeletEndpoint?: { Port?: number } };
  };
  const addresses = st.addresses ?? [];
  for (const type of PREFERRED_ADDRESS_TYPES) {
    const found = addresses.find((a) => a.type === type);
    if (found) return { host: found.address, port: st.daemonEndpoints?.kubeletEndpoint?.Port || 10250 };
  }
  const known = addresses.map((a) => `{${a.type} ${a.address}}`).join(" ");
  throw status(500, undefined, `no preferred addresses found; known addresses: [${known}]`, "get");
}

const isLoopback = (host: string) => host === "localhost" || /^127\./.test(host) || host === "::1";
const refused = (host: string, port: number) => `dial tcp ${host}:${port}: connect: connection refused`;
const isUpgrade = (req: Request) => /\bupgrade\b/i.test(req.headers.get("connection") ?? "");

/** pods/exec, pods/attach and pods/portforward (GET or POST). */
function podConnect(store: () => FakeStore, kind: "exec" | "attach" | "portforward"): Handler {
  return (req, route, url) => {
    if (req.method !== "GET" && req.method !== "POST") throw methodNotAllowed(route.def, req.method.toLowerCase());
    const pod = store().get(route.def, route.name!, { namespace: route.namespace });
    if (kind !== "portforward") container(pod, url);
    const nodeName = (pod.spec as { nodeName?: string } | undefined)?.nodeName;
    if (!nodeName) throw badRequest(`pod ${route.name} does not have a host assigned`, "get");
    const { host, port } = kubeletAddress(store(), nodeName, "pods");
    if (!isUpgrade(req)) throw badRequest("Upgrade request required", "get");
    throw status(500, undefined, `error dialing backend: ${refused(host, port)}`, "get");
  };
}

/** pods/log: the fake kubelet's text for its pods, kube's answers for the rest. */
function podLog(store: () => FakeStore, kubelet: () => FakeKubelet | undefined): Handler {
  return (req, route, url) => {
    if (req.method !== "GET") throw methodNotAllowed(route.def, req.method.toLowerCase());
    const pod = store().get(route.def, route.name!, { namespace: route.namespace });
    const name = container(pod, url);
    const nodeName = (pod.spec as { nodeName?: string } | undefined)?.nodeName;
    if (!nodeName) return Promise.resolve(new Response(null, { status: 204 }));
    const { host, port } = kubeletAddress(store(), nodeName, "pods");
    const k = kubelet();
    if (!k || k.nodeName !== nodeName) {
      const target = `https://${host}:${port}/containerLogs/${route.namespace}/${route.name}/${name}`;
      throw status(500, undefined, `Get "${target}": ${refused(host, port)}`, "get");
    }
    let text = k.logs(route.namespace!, route.name!, name);
    const tail = Number(url.searchParams.get("tailLines") ?? "");
    if (Number.isInteger(tail) && tail >= 0 && url.searchParams.has("tailLines")) {
      const lines = text.split("\n");
      const ends = text.endsWith("\n");
      const body = ends ? lines.slice(0, -1) : lines;
      text = body.slice(Math.max(0, body.length - tail)).join("\n") + (ends && tail > 0 ? "\n" : "");
    }
    return Promise.resolve(new Response(text, { headers: { "content-type": "text/plain" } }));
  };
}

/** pods/proxy: needs the pod's IP. */
function podProxy(store: () => FakeStore): Handler {
  return (_req, route) => {
    const pod = store().get(route.def, proxiedName(route.name!), { namespace: route.namespace });
    const ip = (pod.status as { podIP?: string } | undefined)?.podIP;
    if (!ip || isLoopback(ip)) throw badRequest("address not allowed", "get");
    throw status(503, "ServiceUnavailable", `error trying to reach service: ${refused(ip, 80)}`, "get");
  };
}

/** nodes/proxy: the Node's kubelet address. */
function nodeProxy(store: () => FakeStore): Handler {
  return (_req, route) => {
    const { host, port } = kubeletAddress(store(), proxiedName(route.name!), "nodes");
    if (isLoopback(host)) throw badRequest("address not allowed", "get");
    throw status(503, "ServiceUnavailable", `error trying to reach service: ${refused(host, port)}`, "get");
  };
}

/** services/proxy: the Service's Endpoints (kube does not read the Service itself). */
function serviceProxy(store: () => FakeStore): Handler {
  return (_req, route) => {
    const name = proxiedName(route.name!);
    const endpoints = store().peek(store().def(ENDPOINTS), route.namespace, name) as
      | { subsets?: { addresses?: { ip: string }[]; ports?: { port: number }[] }[] }
      | undefined;
    const subset = endpoints?.subsets?.find((s) => s.addresses?.length);
    if (!subset) throw status(503, "ServiceUnavailable", `no endpoints available for service "${name}"`, "get");
    const ip = subset.addresses![0].ip;
    if (isLoopback(ip)) throw badRequest("address not allowed", "get");
    throw status(
      503,
      "ServiceUnavailable",
      `error trying to reach service: ${refused(ip, subset.ports?.[0]?.port ?? 80)}`,
      "get",
    );
  };
}

/** The connect subresources' handlers keyed `group/plural/subresource`, for the router. */
export function streamingSubresources(
  store: () => FakeStore,
  kubelet: () => FakeKubelet | undefined,
): Map<string, Handler> {
  return new Map<string, Handler>([
    ["/pods/exec", podConnect(store, "exec")],
    ["/pods/attach", podConnect(store, "attach")],
    ["/pods/portforward", podConnect(store, "portforward")],
    ["/pods/log", podLog(store, kubelet)],
    ["/pods/proxy", podProxy(store)],
    ["/nodes/proxy", nodeProxy(store)],
    ["/services/proxy", serviceProxy(store)],
  ]);
}
