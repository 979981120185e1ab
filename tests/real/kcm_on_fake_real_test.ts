// The real kube-controller-manager (v1.37, built by scripts/k8s-bin.sh) runs its workload controllers unchanged
// against the fake API server and its fake kubelet: Deployments roll out, scale and undo, StatefulSet pods come up in
// order, a DaemonSet gets a pod per node, Jobs complete and fail, a PDB reports, a Service gets its EndpointSlice,
// deletes cascade. The fake embeds its own garbage collector and namespace controller (testing/apiserver/gc.ts,
// namespace_finalize.ts), so kube-controller-manager runs neither.
import assert from "node:assert/strict";
import { startFakeApiServer } from "../../testing/mod.ts";
import { call } from "../../testing/test_http.ts";
import { eventually } from "../../testing/eventually.ts";
import { realControlPlaneBinDir } from "../../testing/envtest/real_control_plane.ts";

const bin = await realControlPlaneBinDir();
const CONTROLLERS = "deployment,replicaset,statefulset,daemonset,job,cronjob,disruption,endpointslice";
const NS = "default";
const APPS = `/apis/apps/v1/namespaces/${NS}`;
const PODS = `/api/v1/namespaces/${NS}/pods`;
const MERGE = { "content-type": "application/merge-patch+json" };
// deno-lint-ignore no-explicit-any
type Json = any;

const podTemplate = (app: string, image = "nginx:1") => ({
  metadata: { labels: { app } },
  spec: { containers: [{ name: "main", image, ports: [{ containerPort: 80 }] }] },
});

Deno.test({
  name: "kube-controller-manager's workload controllers on the fake API server",
  ignore: !bin,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const s = await startFakeApiServer({ anonymousAdmin: true, kubelet: true });
    const dir = await Deno.makeTempDir({ prefix: "kubeop-kcm-fake-" });
    await s.writeKubeconfig(`${dir}/kubeconfig`);
    const log = await Deno.open(`${dir}/kcm.log`, { write: true, create: true });
    const kcm = new Deno.Command(`${bin}/kube-controller-manager`, {
      args: [
        `--kubeconfig=${dir}/kubeconfig`,
        `--controllers=${CONTROLLERS}`,
        "--leader-elect=false",
        "--use-service-account-credentials=false",
        "--bind-address=127.0.0.1",
        "--secure-port=0",
        "--concurrent-statefulset-syncs=1",
      ],
      stdout: "null",
      stderr: "piped",
    }).spawn();
    kcm.stderr.pipeTo(log.writable).catch(() => {});
    const get = async (path: string): Promise<Json> => (await call(s.url, "GET", path)).body;
    const create = async (path: string, body: unknown): Promise<Json> => {
      const res = await call(s.url, "POST", path, body);
      assert.equal(res.status, 201, `${path}: ${JSON.stringify(res.body)}`);
      return res.body;
    };
    const pods = async (selector: string): Promise<Json[]> =>
      (await get(`${PODS}?labelSelector=${encodeURIComponent(selector)}`)).items;
    const wait = <T>(what: string, check: () => Promise<T | undefined | false>) =>
      eventually(what, check, { timeoutMs: 30_000, intervalMs: 100 });
    try {
      // Created first: kube-controller-manager's cronjob controller runs on the wall clock, so its first Job comes at the
      // next minute boundary; the steps below pass the time, the last one checks.
      await create(`/apis/batch/v1/namespaces/${NS}/cronjobs`, {
        metadata: { name: "tick" },
        spec: {
          schedule: "* * * * *",
          concurrencyPolicy: "Forbid",
          successfulJobsHistoryLimit: 1,
          jobTemplate: {
            spec: {
              template: {
                spec: {
                  restartPolicy: "Never",
                  containers: [{ name: "main", image: "busybox", command: ["sh", "-c", "exit 0"] }],
                },
              },
            },
          },
        },
      });

      await t.step("Deployment: rollout, scale, new template, undo", async () => {
        await create(`${APPS}/deployments`, {
          metadata: { name: "web" },
          spec: { replicas: 2, selector: { matchLabels: { app: "web" } }, template: podTemplate("web") },
        });
        const rolledOut = (replicas: number) => async () => {
          const d = await get(`${APPS}/deployments/web`);
          const st = d.status ?? {};
          return st.observedGeneration === d.metadata.generation && st.updatedReplicas === replicas &&
            st.availableReplicas === replicas && st.replicas === replicas && d;
        };
        await wait("web rolled out with 2 replicas", rolledOut(2));
        const [first] = (await get(`${APPS}/replicasets?labelSelector=app%3Dweb`)).items;
        assert.equal(first.metadata.ownerReferences[0].kind, "Deployment");
        assert.equal(first.metadata.annotations["deployment.kubernetes.io/revision"], "1");
        await call(s.url, "PATCH", `${APPS}/deployments/web`, { spec: { replicas: 4 } }, MERGE);
        await wait("web scaled to 4", rolledOut(4));
        assert.equal((await pods("app=web")).filter((p) => p.status.phase === "Running").length, 4);
        await call(
          s.url,
          "PATCH",
          `${APPS}/deployments/web`,
          { spec: { template: podTemplate("web", "nginx:2") } },
          MERGE,
        );
        await wait("web rolled out nginx:2", async () => {
          const ok = await rolledOut(4)();
          const images = (await pods("app=web")).map((p) => p.spec.containers[0].image);
          return ok && images.length === 4 && images.every((i) => i === "nginx:2");
        });
        const sets: Json[] = (await get(`${APPS}/replicasets?labelSelector=app%3Dweb`)).items;
        assert.equal(sets.length, 2);
        assert.equal(sets.find((r) => r.metadata.name === first.metadata.name).spec.replicas, 0);
        // `kubectl rollout undo`: the previous ReplicaSet's template goes back into the Deployment.
        await call(s.url, "PATCH", `${APPS}/deployments/web`, { spec: { template: first.spec.template } }, MERGE);
        await wait("web undone to revision 1's ReplicaSet (now revision 3)", async () => {
          const ok = await rolledOut(4)();
          const rs = await get(`${APPS}/replicasets/${first.metadata.name}`);
          return ok && rs.spec.replicas === 4 && rs.metadata.annotations["deployment.kubernetes.io/revision"] === "3";
        });
      });

      await t.step("PodDisruptionBudget status and a Service's EndpointSlice", async () => {
        await create(`/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets`, {
          metadata: { name: "web" },
          spec: { minAvailable: 1, selector: { matchLabels: { app: "web" } } },
        });
        const pdb = await wait("the PDB reports 4 healthy, 3 disruptions allowed", async () => {
          const p = await get(`/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets/web`);
          return p.status?.currentHealthy === 4 && p.status.disruptionsAllowed === 3 && p;
        });
        assert.equal(pdb.status.desiredHealthy, 1);
        assert.equal(pdb.status.expectedPods, 4);
        assert.equal(pdb.status.conditions.find((c: Json) => c.type === "DisruptionAllowed").status, "True");
        await create(`/api/v1/namespaces/${NS}/services`, {
          metadata: { name: "web" },
          spec: { selector: { app: "web" }, ports: [{ name: "http", port: 80, targetPort: 80 }] },
        });
        const podIPs = (await pods("app=web")).map((p) => p.status.podIP).sort();
        const slice = await wait("an EndpointSlice with the 4 pod IPs", async () => {
          const list = await get(
            `/apis/discovery.k8s.io/v1/namespaces/${NS}/endpointslices?labelSelector=${
              encodeURIComponent("kubernetes.io/service-name=web")
            }`,
          );
          const sl = list.items[0];
          const ips = (sl?.endpoints ?? []).flatMap((e: Json) => e.addresses).sort();
          return ips.length === 4 && sl;
        });
        assert.deepEqual(slice.endpoints.flatMap((e: Json) => e.addresses).sort(), podIPs);
        assert.ok(slice.endpoints.every((e: Json) => e.conditions.ready === true && e.nodeName === "fake-node"));
        assert.deepEqual(slice.ports, [{ name: "http", port: 80, protocol: "TCP" }]);
        assert.equal(slice.metadata.ownerReferences[0].kind, "Service");
      });

      await t.step("StatefulSet: db-N is created only once db-(N-1) is Running and Ready", async () => {
        const violations: string[] = [];
        const created: string[] = [];
        const stop = s.store.objects.onCommit((ev) => {
          const name = ev.object.metadata.name ?? "";
          if (ev.type !== "ADDED" || ev.storageKey !== "/pods" || !/^db-\d$/.test(name)) return;
          created.push(name);
          const ordinal = Number(name.slice(3));
          if (ordinal === 0) return;
          const before = s.store.objects.get("/pods", NS, `db-${ordinal - 1}`);
          const ready = (before?.status as Json)?.conditions?.some((c: Json) =>
            c.type === "Ready" && c.status === "True"
          );
          if (!ready) violations.push(`${name} created while db-${ordinal - 1} was not Ready`);
        });
        try {
          await create(`/api/v1/namespaces/${NS}/services`, {
            metadata: { name: "db" },
            spec: { clusterIP: "None", selector: { app: "db" }, ports: [{ port: 5432 }] },
          });
          await create(`${APPS}/statefulsets`, {
            metadata: { name: "db" },
            spec: {
              replicas: 3,
              serviceName: "db",
              selector: { matchLabels: { app: "db" } },
              template: podTemplate("db"),
            },
          });
          await wait("db has 3 ready replicas", async () => {
            const st = (await get(`${APPS}/statefulsets/db`)).status ?? {};
            return st.readyReplicas === 3 && st.currentRevision && st.currentRevision === st.updateRevision;
          });
        } finally {
          stop();
        }
        assert.deepEqual(created, ["db-0", "db-1", "db-2"]);
        assert.deepEqual(violations, []);
        const revisions = (await get(`${APPS}/controllerrevisions?labelSelector=app%3Ddb`)).items;
        assert.equal(revisions.length, 1);
        assert.equal(revisions[0].metadata.ownerReferences[0].name, "db");
        const db1 = await get(`${PODS}/db-1`);
        assert.equal(db1.metadata.labels["statefulset.kubernetes.io/pod-name"], "db-1");
        assert.equal(db1.spec.hostname, "db-1");
        assert.equal(db1.spec.subdomain, "db");
      });

      await t.step("DaemonSet: one pod per node, bound by node affinity", async () => {
        await create("/api/v1/nodes", {
          metadata: { name: "node-2", labels: { "kubernetes.io/hostname": "node-2", "kubernetes.io/os": "linux" } },
          status: { conditions: [{ type: "Ready", status: "True", reason: "KubeletReady" }] },
        });
        // TaintNodesByCondition gave it node.kubernetes.io/not-ready:NoSchedule, which the node lifecycle controller
        // (not among the controllers run here) takes off a Ready node: do what it does, or no DaemonSet pod fits.
        const untainted = await call(s.url, "PATCH", "/api/v1/nodes/node-2", { spec: { taints: null } }, MERGE);
        assert.equal(untainted.status, 200, JSON.stringify(untainted.body));
        await create(`${APPS}/daemonsets`, {
          metadata: { name: "agent" },
          spec: { selector: { matchLabels: { app: "agent" } }, template: podTemplate("agent") },
        });
        const ds = await wait("agent scheduled on both nodes, ready on the kubelet's", async () => {
          const d = await get(`${APPS}/daemonsets/agent`);
          const st = d.status ?? {};
          return st.desiredNumberScheduled === 2 && st.currentNumberScheduled === 2 && st.numberReady === 1 && d;
        });
        assert.equal(ds.status.numberMisscheduled ?? 0, 0); // omitempty: 0 is not sent
        const byNode = new Map<string, Json>();
        for (const p of await pods("app=agent")) {
          const term = p.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0];
          byNode.set(term.matchFields[0].values[0], p);
        }
        assert.deepEqual([...byNode.keys()].sort(), ["fake-node", "node-2"]);
        assert.equal(byNode.get("fake-node").status.phase, "Running");
        // No scheduler and no kubelet for node-2: its pod stays Pending and unbound.
        assert.equal(byNode.get("node-2").spec.nodeName, undefined);
        assert.equal(byNode.get("node-2").status.phase, "Pending");
      });

      await t.step("Jobs: completion and failure", async () => {
        const job = (name: string, command: string, extra: Record<string, unknown>) => ({
          metadata: { name },
          spec: {
            ...extra,
            template: {
              spec: {
                restartPolicy: "Never",
                containers: [{ name: "main", image: "busybox", command: ["sh", "-c", command] }],
              },
            },
          },
        });
        await create(`/apis/batch/v1/namespaces/${NS}/jobs`, job("ok", "exit 0", { completions: 2, parallelism: 1 }));
        await create(`/apis/batch/v1/namespaces/${NS}/jobs`, job("bad", "exit 3", { backoffLimit: 0 }));
        const condition = (name: string, type: string) => async () => {
          const j = await get(`/apis/batch/v1/namespaces/${NS}/jobs/${name}`);
          return j.status?.conditions?.some((c: Json) => c.type === type && c.status === "True") && j;
        };
        const ok = await wait("job ok Complete", condition("ok", "Complete"));
        assert.equal(ok.status.succeeded, 2);
        assert.ok(ok.status.completionTime);
        const bad = await wait("job bad Failed", condition("bad", "Failed"));
        assert.equal(bad.status.failed, 1);
        assert.equal(bad.status.conditions.find((c: Json) => c.type === "Failed").reason, "BackoffLimitExceeded");
        const okPods = await pods("job-name=ok");
        assert.equal(okPods.filter((p) => p.status.phase === "Succeeded").length, 2);
      });

      await t.step("CronJob: a Job at the schedule, owned by the CronJob, completed and recorded", async () => {
        const tick = await eventually("the CronJob's first Job to complete", async () => {
          const c = await get(`/apis/batch/v1/namespaces/${NS}/cronjobs/tick`);
          return c.status?.lastSuccessfulTime && c;
        }, { timeoutMs: 90_000, intervalMs: 500 });
        assert.ok(tick.status.lastScheduleTime, "lastScheduleTime recorded");
        const jobs = (await get(`/apis/batch/v1/namespaces/${NS}/jobs`)).items.filter((j: Json) =>
          j.metadata.ownerReferences?.some((o: Json) => o.kind === "CronJob" && o.name === "tick" && o.controller)
        );
        assert.ok(jobs.length >= 1, "a Job owned by the CronJob");
        assert.match(jobs[0].metadata.name, /^tick-\d+$/, "named tick-<scheduled minute>, as kube names them");
        assert.ok(jobs.some((j: Json) => j.status?.succeeded === 1));
      });

      await t.step("cascading delete: Deployment → ReplicaSets → Pods", async () => {
        const res = await call(s.url, "DELETE", `${APPS}/deployments/web`, { propagationPolicy: "Foreground" });
        assert.ok(res.status === 200 || res.status === 202, JSON.stringify(res.body));
        await wait("web's ReplicaSets and pods are gone", async () => {
          const sets = (await get(`${APPS}/replicasets?labelSelector=app%3Dweb`)).items;
          const left = await pods("app=web");
          const d = await call(s.url, "GET", `${APPS}/deployments/web`);
          return sets.length === 0 && left.length === 0 && d.status === 404;
        });
      });
    } catch (err) {
      const text = await Deno.readTextFile(`${dir}/kcm.log`).catch(() => "");
      throw new Error(`${(err as Error).message}\nkube-controller-manager log (tail):\n${text.slice(-4000)}`);
    } finally {
      kcm.kill("SIGTERM");
      await kcm.status;
      const text = await Deno.readTextFile(`${dir}/kcm.log`).catch(() => "");
      await s.stop();
      await Deno.remove(dir, { recursive: true });
      // Not a sync error of any kind ran into a protobuf body the fake could not decode.
      assert.doesNotMatch(text, /in the protobuf decoder/);
      // The stale-read guard's retries (testing/README.md compares them with kube-apiserver's): reported, not bounded,
      // as they depend on timing.
      console.log(`stale-read retries: ${text.match(/is not as new as written version/g)?.length ?? 0}`);
    }
  },
});
