/**
 * `/healthz`, `/livez` and `/readyz` as kube-apiserver v1.37.2 serves them (k8s.io/apiserver pkg/server/healthz): `ok`
 * for the root, or with `?verbose` (any value) one `[+]<check> ok` line per check in kube's order, `[+]<check>
 * excluded: ok` for each `?exclude=<check>`, a `warn: some health checks cannot be excluded: no matches for "<x>"`
 * line for exclusions matching none, then `<endpoint> check passed`; each check also at `/<endpoint>/<check>`
 * (`ok`). The fake's checks always pass; the lists are the ones a v1.37.2 server with its default configuration
 * reports (its post-start hooks included).
 * @module
 */

const POST_START_HOOKS = [
  "start-apiserver-admission-initializer",
  "generic-apiserver-start-informers",
  "priority-and-fairness-config-consumer",
  "priority-and-fairness-filter",
  "storage-object-count-tracker-hook",
  "start-apiextensions-informers",
  "start-apiextensions-controllers",
  "crd-informer-synced",
  "start-system-namespaces-controller",
  "peer-endpoint-reconciler-controller",
  "start-cluster-authentication-info-controller",
  "start-kube-apiserver-identity-lease-controller",
  "start-kube-apiserver-identity-lease-garbage-collector",
  "storage-readiness",
  "start-legacy-token-tracking-controller",
  "start-service-ip-repair-controllers",
  "rbac/bootstrap-roles",
  "scheduling/bootstrap-system-priority-classes",
  "priority-and-fairness-config-producer",
  "bootstrap-controller",
  "start-kubernetes-service-cidr-controller",
  "aggregator-reload-proxy-client-cert",
  "start-kube-aggregator-informers",
  "apiservice-status-local-available-controller",
  "apiservice-status-remote-available-controller",
  "apiservice-registration-controller",
  "apiservice-discovery-controller",
  "kube-apiserver-autoregistration",
].map((h) => `poststarthook/${h}`);
const TAIL = ["autoregister-completion", "poststarthook/apiservice-openapi-controller"];
const OPENAPI_V3 = "poststarthook/apiservice-openapiv3-controller";

/** Each endpoint's checks, in the order kube runs and lists them. */
export const HEALTH_CHECKS: Readonly<Record<string, readonly string[]>> = {
  healthz: ["ping", "log", "loopback-serving-certificate", "etcd", ...POST_START_HOOKS, ...TAIL, OPENAPI_V3],
  livez: ["ping", "log", "loopback-serving-certificate", "etcd", ...POST_START_HOOKS, ...TAIL, OPENAPI_V3],
  readyz: [
    "ping",
    "log",
    "etcd",
    "etcd-readiness",
    "informer-sync",
    ...POST_START_HOOKS,
    ...TAIL,
    OPENAPI_V3,
    "shutdown",
  ],
};

const TEXT = "text/plain; charset=utf-8";

/** The answer to a health path (`path` without a trailing slash), or undefined when `path` is none. */
export function healthResponse(path: string, query: URLSearchParams): Response | undefined {
  const [, endpoint, ...rest] = path.split("/");
  const checks = HEALTH_CHECKS[endpoint];
  if (!checks || path !== `/${endpoint}${rest.length ? `/${rest.join("/")}` : ""}`) return undefined;
  if (rest.length > 0) {
    // One check: Go's writer sniffs the content type, no nosniff header.
    return checks.includes(rest.join("/")) ? new Response("ok", { headers: { "content-type": TEXT } }) : undefined;
  }
  const headers = { "content-type": TEXT, "x-content-type-options": "nosniff" };
  if (!query.has("verbose")) return new Response("ok", { headers });
  const excluded = new Set(query.getAll("exclude"));
  let out = "";
  for (const check of checks) {
    out += excluded.delete(check) ? `[+]${check} excluded: ok\n` : `[+]${check} ok\n`;
  }
  if (excluded.size > 0) {
    const names = [...excluded].sort().map((e) => JSON.stringify(e)).join(",");
    out += `warn: some health checks cannot be excluded: no matches for ${names}\n`;
  }
  return new Response(`${out}${endpoint} check passed\n`, { headers });
}
