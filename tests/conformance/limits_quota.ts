/**
 * Conformance cases: the LimitRanger and ResourceQuota admission plugins kube-apiserver enables by default — defaults
 * and the limit-ranger annotation, min/max/ratio refusals in kube's words, quota refusals and the usage admission
 * writes into a quota's status (the quota controller, which fills `status.hard` and recounts, is not running on either
 * target: the cases write the status themselves) — and the pod QoS class. Each case works in its own namespace, so
 * its LimitRanges and quotas touch no other case's pods.
 * @module
 */
import assert from "node:assert/strict";
import { call, type Json } from "./crd_helpers.ts";
import type { ConformanceCase, ConformanceContext } from "./support.ts";

/** Runs `fn` in a fresh namespace, deleted afterwards. */
async function inNamespace(ctx: ConformanceContext, tag: string, fn: (path: string) => Promise<void>) {
  const ns = `${ctx.ns}-${tag}`;
  const made = await call(ctx.client, "POST", "/api/v1/namespaces", { metadata: { name: ns } });
  assert.equal(made.code, 201, JSON.stringify(made.body));
  try {
    await fn(`/api/v1/namespaces/${ns}`);
  } finally {
    await call(ctx.client, "DELETE", `/api/v1/namespaces/${ns}`);
  }
}

const pod = (name: string, containers: Json[], extra: Json = {}) => ({
  metadata: { name },
  spec: { containers: containers.map((c) => ({ image: "registry.k8s.io/pause:3.10", ...c })), ...extra },
});

/** The answer's code, reason and message. */
const refusal = (a: { code: number; body: Json }) => [a.code, a.body.reason, a.body.message];

/** LimitRanger and ResourceQuota admission. */
export const limitsQuotaCases: ConformanceCase[] = [
  {
    name: "LimitRange: defaults fill containers without requests or limits, noted in the limit-ranger annotation",
    run: (ctx) =>
      inNamespace(ctx, "lr-defaults", async (path) => {
        const lr = await call(ctx.client, "POST", `${path}/limitranges`, {
          metadata: { name: "lr" },
          spec: { limits: [{ type: "Container", default: { cpu: "500m", memory: "128Mi" }, max: { cpu: "1" } }] },
        });
        assert.equal(lr.code, 201, JSON.stringify(lr.body));
        // SetDefaults_LimitRangeItem: defaultRequest from default.
        assert.deepEqual(lr.body.spec.limits[0].defaultRequest, { cpu: "500m", memory: "128Mi" });
        const init = { name: "i", image: "registry.k8s.io/pause:3.10", resources: { limits: { cpu: "1" } } };
        const containers = [{ name: "c" }, { name: "d", resources: { requests: { cpu: "200m" } } }];
        const created = await call(
          ctx.client,
          "POST",
          `${path}/pods`,
          pod("p", containers, { initContainers: [init] }),
        );
        assert.equal(created.code, 201, JSON.stringify(created.body));
        assert.equal(
          created.body.metadata.annotations?.["kubernetes.io/limit-ranger"],
          "LimitRanger plugin set: cpu, memory request for container c; cpu, memory limit for container c; " +
            "memory request for container d; cpu, memory limit for container d; memory request for init container i; " +
            "memory limit for init container i",
        );
        const resources = [...created.body.spec.containers, ...created.body.spec.initContainers].map((c: Json) =>
          c.resources
        );
        assert.deepEqual(resources, [
          { limits: { cpu: "500m", memory: "128Mi" }, requests: { cpu: "500m", memory: "128Mi" } },
          { limits: { cpu: "500m", memory: "128Mi" }, requests: { cpu: "200m", memory: "128Mi" } },
          { limits: { cpu: "1", memory: "128Mi" }, requests: { cpu: "1", memory: "128Mi" } },
        ]);
        assert.equal(created.body.status.qosClass, "Burstable");
      }),
  },
  {
    name: "LimitRange: min, max and ratio refusals are 403 in kube's words; a request over its limit is 422 first",
    run: (ctx) =>
      inNamespace(ctx, "lr-refusals", async (path) => {
        await call(ctx.client, "POST", `${path}/limitranges`, {
          metadata: { name: "lr" },
          spec: {
            limits: [
              { type: "Container", min: { cpu: "50m" }, max: { cpu: "1" }, maxLimitRequestRatio: { cpu: "10" } },
              { type: "Pod", max: { cpu: "2" } },
            ],
          },
        });
        const create = (p: Json) => call(ctx.client, "POST", `${path}/pods`, p);
        const forbidden = (name: string, why: string) => [403, "Forbidden", `pods "${name}" is forbidden: ${why}`];
        const one = await create(pod("p1", [{ name: "c", resources: { limits: { cpu: "2" } } }]));
        assert.deepEqual(refusal(one), forbidden("p1", "maximum cpu usage per Container is 1, but limit is 2"));
        assert.deepEqual(one.body.details, { name: "p1", kind: "pods" });
        const several = await create(
          pod("p2", [{ name: "c", resources: { requests: { cpu: "5m" }, limits: { cpu: "3" } } }]),
        );
        assert.deepEqual(
          refusal(several),
          forbidden(
            "p2",
            "[minimum cpu usage per Container is 50m, but request is 5m, maximum cpu usage per Container is 1, " +
              "but limit is 3, cpu max limit to request ratio per Container is 10, but provided ratio is 600.000000, " +
              "maximum cpu usage per Pod is 2, but limit is 3]",
          ),
        );
        const ratio = await create(
          pod("p3", [{ name: "c", resources: { requests: { cpu: "60m" }, limits: { cpu: "1" } } }]),
        );
        assert.deepEqual(
          refusal(ratio),
          forbidden("p3", "cpu max limit to request ratio per Container is 10, but provided ratio is 16.666667"),
        );
        // SetDefaults_LimitRangeItem: the max is also the default limit, so a container without a limit gets it.
        const noLimit = await create(pod("p4", [{ name: "c", resources: { requests: { cpu: "100m" } } }]));
        assert.equal(noLimit.code, 201, JSON.stringify(noLimit.body));
        assert.deepEqual(noLimit.body.spec.containers[0].resources.limits, { cpu: "1" });
        const over = await create(
          pod("p5", [{ name: "c", resources: { requests: { cpu: "900m" }, limits: { cpu: "500m" } } }]),
        );
        assert.deepEqual(refusal(over), [
          422,
          "Invalid",
          'Pod "p5" is invalid: spec.containers[0].resources.requests: Invalid value: "900m": must be less than or ' +
          "equal to cpu limit of 500m",
        ]);
        const fine = await create(
          pod("p6", [{ name: "c", resources: { requests: { cpu: "1" }, limits: { cpu: "1" } } }]),
        );
        assert.equal(fine.code, 201, JSON.stringify(fine.body));
      }),
  },
  {
    name: "LimitRange: a PersistentVolumeClaim's storage request outside its item's min and max is 403",
    run: (ctx) =>
      inNamespace(ctx, "lr-pvc", async (path) => {
        await call(ctx.client, "POST", `${path}/limitranges`, {
          metadata: { name: "lr" },
          spec: { limits: [{ type: "PersistentVolumeClaim", min: { storage: "1Gi" }, max: { storage: "2Gi" } }] },
        });
        const pvc = (name: string, storage: string) => ({
          metadata: { name },
          spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage } } },
        });
        const create = (name: string, storage: string) =>
          call(ctx.client, "POST", `${path}/persistentvolumeclaims`, pvc(name, storage));
        const forbidden = (name: string, why: string) => [
          403,
          "Forbidden",
          `persistentvolumeclaims "${name}" is forbidden: ${why}`,
        ];
        assert.deepEqual(
          refusal(await create("big", "5Gi")),
          forbidden("big", "maximum storage usage per PersistentVolumeClaim is 2Gi, but request is 5Gi"),
        );
        assert.deepEqual(
          refusal(await create("small", "500Mi")),
          forbidden("small", "minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi"),
        );
        assert.equal((await create("fits", "1536Mi")).code, 201);
      }),
  },
  {
    name: "ResourceQuota: an empty status admits; with usage set, admission refuses over hard and raises used",
    run: (ctx) =>
      inNamespace(ctx, "quota", async (path) => {
        const hard = { pods: "2", "requests.cpu": "1", "count/configmaps": "1", "count/deployments.apps": "1" };
        const q = await call(ctx.client, "POST", `${path}/resourcequotas`, { metadata: { name: "q" }, spec: { hard } });
        assert.deepEqual(q.body.status, {});
        // No quota controller: status.hard stays empty, and admission lets everything in.
        const early = await call(ctx.client, "POST", `${path}/pods`, pod("early", [{ name: "c" }]));
        assert.equal(early.code, 201, JSON.stringify(early.body));
        const status = { hard, used: { pods: "1", "requests.cpu": "0", "count/configmaps": "0" } };
        const set = await call(ctx.client, "PUT", `${path}/resourcequotas/q/status`, { ...q.body, status });
        assert.equal(set.code, 200, JSON.stringify(set.body));
        const forbidden = (what: string, why: string) => [403, "Forbidden", `${what} is forbidden: ${why}`];
        const bare = await call(ctx.client, "POST", `${path}/pods`, pod("bare", [{ name: "c" }, { name: "b" }]));
        assert.deepEqual(
          refusal(bare),
          forbidden('pods "bare"', "failed quota: q: must specify requests.cpu for: b,c"),
        );
        const cpu = (name: string, amount: string) =>
          pod(name, [{ name: "c", resources: { requests: { cpu: amount } } }]);
        assert.equal((await call(ctx.client, "POST", `${path}/pods`, cpu("a", "600m"))).code, 201);
        const used = (await call(ctx.client, "GET", `${path}/resourcequotas/q`)).body.status.used;
        assert.deepEqual(used, { pods: "2", "requests.cpu": "600m", "count/configmaps": "0" });
        assert.deepEqual(
          refusal(await call(ctx.client, "POST", `${path}/pods`, cpu("b", "600m"))),
          forbidden(
            'pods "b"',
            "exceeded quota: q, requested: pods=1,requests.cpu=600m, used: pods=2,requests.cpu=600m, " +
              "limited: pods=2,requests.cpu=1",
          ),
        );
        // A dry run is refused like the real thing, and an admitted dry run leaves the usage alone.
        const dry = await call(ctx.client, "POST", `${path}/configmaps`, { metadata: { name: "x" } }, "?dryRun=All");
        assert.equal(dry.code, 201, JSON.stringify(dry.body));
        assert.equal((await call(ctx.client, "POST", `${path}/configmaps`, { metadata: { name: "cm1" } })).code, 201);
        assert.deepEqual(
          refusal(await call(ctx.client, "POST", `${path}/configmaps`, { metadata: { name: "cm2" } }, "?dryRun=All")),
          forbidden(
            'configmaps "cm2"',
            "exceeded quota: q, requested: count/configmaps=1, used: count/configmaps=1, limited: count/configmaps=1",
          ),
        );
        const after = (await call(ctx.client, "GET", `${path}/resourcequotas/q`)).body.status.used;
        assert.deepEqual(after, { pods: "2", "requests.cpu": "600m", "count/configmaps": "1" });
        // A resource the quota limits without a usage figure: status unknown.
        const deployment = await call(
          ctx.client,
          "POST",
          `/apis/apps/v1/namespaces/${path.split("/")[4]}/deployments`,
          {
            metadata: { name: "d" },
            spec: {
              selector: { matchLabels: { a: "b" } },
              template: { metadata: { labels: { a: "b" } }, spec: { containers: [{ name: "c", image: "x" }] } },
            },
          },
        );
        assert.deepEqual(
          refusal(deployment),
          forbidden('deployments.apps "d"', "status unknown for quota: q, resources: count/deployments.apps"),
        );
      }),
  },
  {
    name: "ResourceQuota scopes: a BestEffort quota counts only pods without requests or limits",
    run: (ctx) =>
      inNamespace(ctx, "quota-scopes", async (path) => {
        const q = await call(ctx.client, "POST", `${path}/resourcequotas`, {
          metadata: { name: "be" },
          spec: { hard: { pods: "1" }, scopes: ["BestEffort"] },
        });
        const status = { hard: { pods: "1" }, used: { pods: "1" } };
        assert.equal(
          (await call(ctx.client, "PUT", `${path}/resourcequotas/be/status`, { ...q.body, status })).code,
          200,
        );
        assert.deepEqual(
          refusal(await call(ctx.client, "POST", `${path}/pods`, pod("be", [{ name: "c" }]))),
          [
            403,
            "Forbidden",
            'pods "be" is forbidden: exceeded quota: be, requested: pods=1, used: pods=1, limited: pods=1',
          ],
        );
        const guaranteed = await call(
          ctx.client,
          "POST",
          `${path}/pods`,
          pod("g", [{ name: "c", resources: { limits: { cpu: "1", memory: "1Gi" } } }]),
        );
        assert.equal(guaranteed.code, 201, JSON.stringify(guaranteed.body));
        assert.equal(guaranteed.body.status.qosClass, "Guaranteed");
        assert.deepEqual(guaranteed.body.spec.containers[0].resources.requests, { cpu: "1", memory: "1Gi" });
      }),
  },
];
