/**
 * Conformance cases: kube-apiserver's health endpoints (k8s.io/apiserver pkg/server/healthz) — `/healthz`, `/livez`,
 * `/readyz`: their plain answers, `?verbose` check lists, `?exclude`, and each check's own path.
 * @module
 */
import assert from "node:assert/strict";
import type { KubeClient } from "../../runtime/client/client.ts";
import type { ConformanceCase } from "./support.ts";

/** A raw GET: status, content type, nosniff header and body text. */
async function get(client: KubeClient, path: string, query: Record<string, string | string[]> = {}, method = "GET") {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) for (const one of [v].flat()) search.append(k, one);
  const res = await client.request(method, `${path}${search.size ? `?${search}` : ""}`);
  return {
    code: res.status,
    type: res.headers.get("content-type"),
    nosniff: res.headers.get("x-content-type-options"),
    text: new TextDecoder().decode(res.body),
  };
}

const HOOKS = [
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
const TAIL = [
  "autoregister-completion",
  "poststarthook/apiservice-openapi-controller",
  "poststarthook/apiservice-openapiv3-controller",
];
const LIVE = ["ping", "log", "loopback-serving-certificate", "etcd", ...HOOKS, ...TAIL];
const READY = ["ping", "log", "etcd", "etcd-readiness", "informer-sync", ...HOOKS, ...TAIL, "shutdown"];
const lines = (checks: string[], excluded: string[] = []) =>
  checks.map((c) => excluded.includes(c) ? `[+]${c} excluded: ok\n` : `[+]${c} ok\n`).join("");

/** Health endpoints. */
export const healthCases: ConformanceCase[] = [
  {
    name: "/healthz, /livez and /readyz answer ok as text/plain; charset=utf-8 with nosniff (any method)",
    async run({ client }) {
      for (const path of ["/healthz", "/livez", "/readyz"]) {
        for (const method of ["GET", "POST"]) {
          assert.deepEqual(await get(client, path, {}, method), {
            code: 200,
            type: "text/plain; charset=utf-8",
            nosniff: "nosniff",
            text: "ok",
          }, `${method} ${path}`);
        }
      }
    },
  },
  {
    name: "/readyz?verbose lists kube's readiness checks in order, then 'readyz check passed'",
    async run({ client }) {
      const got = await get(client, "/readyz", { verbose: "true" });
      assert.equal(got.code, 200);
      assert.equal(got.text, `${lines(READY)}readyz check passed\n`);
    },
  },
  {
    name: "/livez and /healthz ?verbose list the liveness checks (loopback-serving-certificate, no readiness checks)",
    async run({ client }) {
      for (const endpoint of ["livez", "healthz"]) {
        const got = await get(client, `/${endpoint}`, { verbose: "1" });
        assert.equal(got.text, `${lines(LIVE)}${endpoint} check passed\n`, endpoint);
      }
    },
  },
  {
    name: "?verbose is verbose whatever its value (verbose=false too)",
    async run({ client }) {
      const got = await get(client, "/readyz", { verbose: "false" });
      assert.ok(got.text.startsWith("[+]ping ok\n"), got.text);
      assert.ok(got.text.endsWith("readyz check passed\n"), got.text);
    },
  },
  {
    name: "?exclude=<check> reports it '[+]<check> excluded: ok'; exclusions matching no check add a warn line",
    async run({ client }) {
      const got = await get(client, "/readyz", { verbose: "", exclude: ["etcd", "shutdown", "no-such", "also-none"] });
      assert.equal(
        got.text,
        `${lines(READY, ["etcd", "shutdown"])}warn: some health checks cannot be excluded: no matches for ` +
          `"also-none","no-such"\nreadyz check passed\n`,
      );
      assert.equal((await get(client, "/livez", { exclude: "no-such" })).text, "ok", "not verbose: just ok");
    },
  },
  {
    name: "each check has its own path: /readyz/ping, /livez/etcd, /readyz/poststarthook/rbac/bootstrap-roles",
    async run({ client }) {
      for (
        const path of ["/readyz/ping", "/livez/etcd", "/healthz/log", "/readyz/poststarthook/rbac/bootstrap-roles"]
      ) {
        const got = await get(client, path);
        assert.deepEqual([got.code, got.type, got.text], [200, "text/plain; charset=utf-8", "ok"], path);
      }
    },
  },
  {
    name: "a single check's path ignores ?verbose and ?exclude: plain ok",
    async run({ client }) {
      const got = await get(client, "/readyz/ping", { verbose: "true", exclude: "ping" });
      assert.deepEqual([got.code, got.text], [200, "ok"]);
    },
  },
  {
    name: "a check the endpoint lacks, an unknown one, and a trailing slash are the mux's 404 page not found",
    async run({ client }) {
      for (const path of ["/readyz/loopback-serving-certificate", "/livez/shutdown", "/readyz/nope", "/healthz/"]) {
        const got = await get(client, path);
        assert.deepEqual([got.code, got.text], [404, "404 page not found\n"], path);
      }
    },
  },
];
