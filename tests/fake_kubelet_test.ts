import assert from "node:assert/strict";
import { VirtualClock } from "../runtime/clock.ts";
import { startFakeApiServer } from "../testing/mod.ts";
import { call } from "../testing/test_http.ts";
import { eventually } from "../testing/eventually.ts";

const PODS = "/api/v1/namespaces/default/pods";

function pod(name: string, command: string[], restartPolicy = "Never") {
  return { metadata: { name }, spec: { restartPolicy, containers: [{ name: "main", image: "busybox", command }] } };
}

Deno.test("fake kubelet: Pending → Running with a pod IP → Succeeded, logs from echo", async () => {
  const clock = new VirtualClock();
  const s = await startFakeApiServer({ anonymousAdmin: true, clock, kubelet: true });
  try {
    assert.equal((await call(s.url, "GET", "/api/v1/nodes/fake-node")).status, 200);
    await call(s.url, "POST", PODS, pod("ok", ["sh", "-c", "echo hello; sleep 5"]));
    const running = await eventually("running", async () => {
      const p = await call(s.url, "GET", `${PODS}/ok`);
      return p.body.status.phase === "Running" ? p.body : undefined;
    });
    assert.match(running.status.podIP, /^10\.244\.\d+\.\d+$/);
    assert.equal(running.spec.nodeName, "fake-node");
    // kube's kubelet writes pod status as manager "kubelet" through the status subresource.
    const kubelet = running.metadata.managedFields.find((e: { manager: string }) => e.manager === "kubelet");
    assert.deepEqual(
      [kubelet?.operation, kubelet?.subresource],
      ["Update", "status"],
      JSON.stringify(running.metadata),
    );
    assert.ok(kubelet.fieldsV1["f:status"]["f:phase"], JSON.stringify(kubelet.fieldsV1));
    await clock.advance(5_000);
    const done = await eventually("succeeded", async () => {
      const p = await call(s.url, "GET", `${PODS}/ok`);
      return p.body.status.phase === "Succeeded" ? p.body : undefined;
    });
    assert.equal(done.status.containerStatuses[0].state.terminated.exitCode, 0);
    const log = await fetch(`${s.url}${PODS}/ok/log`).then((r) => r.text());
    assert.equal(log, "hello\n");
  } finally {
    await s.stop();
  }
});

Deno.test("fake kubelet: its Ready node loses the not-ready taint new Nodes get, as the node lifecycle controller does", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true, kubelet: true });
  try {
    const node = (await call(s.url, "GET", "/api/v1/nodes/fake-node")).body;
    // TaintNodesByCondition tainted it on create; a node nothing untaints takes no pod from a scheduler or a DaemonSet.
    assert.deepEqual(node.spec.taints ?? [], [], JSON.stringify(node.spec));
    // A Node created by anyone else keeps the taint until a controller takes it off.
    const other = await call(s.url, "POST", "/api/v1/nodes", { metadata: { name: "other" } });
    assert.deepEqual(other.body.spec.taints, [{ key: "node.kubernetes.io/not-ready", effect: "NoSchedule" }]);
  } finally {
    await s.stop();
  }
});

Deno.test("fake kubelet: a scripted failure with a termination message fails a Never pod", async () => {
  const clock = new VirtualClock();
  const s = await startFakeApiServer({
    anonymousAdmin: true,
    clock,
    kubelet: {
      behaviour: (_pod, c) =>
        c.command?.[0] === "fail" ? { exitCode: 3, terminationMessage: "boom", runMs: 1_000 } : undefined,
    },
  });
  try {
    await call(s.url, "POST", PODS, pod("bad", ["fail"]));
    await eventually("running", async () => (await call(s.url, "GET", `${PODS}/bad`)).body.status.phase === "Running");
    await clock.advance(1_000);
    const failed = await eventually("failed", async () => {
      const p = await call(s.url, "GET", `${PODS}/bad`);
      return p.body.status.phase === "Failed" ? p.body : undefined;
    });
    const term = failed.status.containerStatuses[0].state.terminated;
    assert.deepEqual([term.exitCode, term.message], [3, "boom"]);
  } finally {
    await s.stop();
  }
});

Deno.test("fake kubelet: restartPolicy OnFailure restarts with restartCount and CrashLoopBackOff, never Failed", async () => {
  const clock = new VirtualClock();
  const s = await startFakeApiServer({ anonymousAdmin: true, clock, kubelet: true });
  try {
    await call(s.url, "POST", PODS, pod("loop", ["sh", "-c", "exit 1"], "OnFailure"));
    const backoff = await eventually("backoff", async () => {
      const p = await call(s.url, "GET", `${PODS}/loop`);
      return p.body.status.containerStatuses?.[0]?.state?.waiting ? p.body : undefined;
    });
    assert.equal(backoff.status.containerStatuses[0].state.waiting.reason, "CrashLoopBackOff");
    assert.equal(backoff.status.containerStatuses[0].restartCount, 1);
    assert.equal(backoff.status.phase, "Running");
    await clock.advance(10_000);
    const again = await eventually("second crash", async () => {
      const p = await call(s.url, "GET", `${PODS}/loop`);
      return p.body.status.containerStatuses[0].restartCount === 2 ? p.body : undefined;
    });
    assert.notEqual(again.status.phase, "Failed");
  } finally {
    await s.stop();
  }
});

Deno.test("pods/binding assigns a node; pods/log with several containers needs ?container", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  try {
    await call(s.url, "POST", PODS, {
      metadata: { name: "two" },
      spec: { containers: [{ name: "a", image: "x" }, { name: "b", image: "y" }] },
    });
    const bind = await call(s.url, "POST", `${PODS}/two/binding`, {
      metadata: { name: "two" },
      target: { kind: "Node", name: "n1" },
    });
    assert.equal(bind.status, 201);
    assert.equal((await call(s.url, "GET", `${PODS}/two`)).body.spec.nodeName, "n1");
    const log = await call(s.url, "GET", `${PODS}/two/log`);
    assert.equal(log.status, 400);
    assert.match(log.body.message, /choose one of: \[a b\]/);
    // No Node n1 (no kubelet): kube's node lookup answers 404 naming the node as a pod.
    const missing = await call(s.url, "GET", `${PODS}/two/log?container=a`);
    assert.equal(missing.status, 404);
    assert.equal(missing.body.message, 'pods "n1" not found');
  } finally {
    await s.stop();
  }
});

Deno.test("fake kubelet resumes running pods after a restart without changing their IP", async () => {
  const clock = new VirtualClock();
  const s = await startFakeApiServer({ anonymousAdmin: true, clock, kubelet: true });
  try {
    await call(s.url, "POST", PODS, pod("long", ["sleep", "10"]));
    const before = await eventually("running", async () => {
      const p = await call(s.url, "GET", `${PODS}/long`);
      return p.body.status.phase === "Running" ? p.body : undefined;
    });
    await s.restart();
    await clock.advance(10_000);
    const after = await eventually("succeeded", async () => {
      const p = await call(s.url, "GET", `${PODS}/long`);
      return p.body.status.phase === "Succeeded" ? p.body : undefined;
    });
    assert.equal(after.status.podIP, before.status.podIP);
  } finally {
    await s.stop();
  }
});

Deno.test("fake kubelet: binds only pods whose node selector and required node affinity fit its node", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true, kubelet: true });
  try {
    const onNode = (name: string) => ({
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{ matchFields: [{ key: "metadata.name", operator: "In", values: [name] }] }],
      },
    });
    const base = (name: string, spec: Record<string, unknown>) => ({
      metadata: { name },
      spec: { ...spec, containers: [{ name: "main", image: "busybox" }] },
    });
    // What the DaemonSet controller creates for each node: one for this kubelet's node, one for another.
    await call(s.url, "POST", PODS, base("other", { affinity: { nodeAffinity: onNode("node-2") } }));
    await call(s.url, "POST", PODS, base("selector", { nodeSelector: { "kubernetes.io/os": "windows" } }));
    await call(s.url, "POST", PODS, base("mine", { affinity: { nodeAffinity: onNode("fake-node") } }));
    await eventually("the fitting pod runs", async () => {
      const p = await call(s.url, "GET", `${PODS}/mine`);
      return p.body.status.phase === "Running";
    });
    // "mine" was created after the two others, and the kubelet handles pods in commit order.
    for (const name of ["other", "selector"]) {
      const p = await call(s.url, "GET", `${PODS}/${name}`);
      assert.equal(p.body.spec.nodeName, undefined, name);
      assert.equal(p.body.status.phase, "Pending", name);
    }
  } finally {
    await s.stop();
  }
});

Deno.test("fake kubelet: a pod naming a scheduler that does not exist stays Pending, unbound", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true, kubelet: true });
  try {
    const base = (name: string, schedulerName?: string) => ({
      metadata: { name },
      spec: { schedulerName, containers: [{ name: "main", image: "busybox" }] },
    });
    await call(s.url, "POST", PODS, base("elsewhere", "no-such-scheduler"));
    await call(s.url, "POST", PODS, base("default", "default-scheduler"));
    await eventually("the default scheduler's pod runs", async () => {
      const p = await call(s.url, "GET", `${PODS}/default`);
      return p.body.status.phase === "Running";
    });
    // "default" was created after "elsewhere", and the kubelet handles pods in commit order.
    const p = await call(s.url, "GET", `${PODS}/elsewhere`);
    assert.deepEqual([p.body.spec.nodeName, p.body.status.phase], [undefined, "Pending"]);
  } finally {
    await s.stop();
  }
});
