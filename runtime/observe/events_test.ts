import assert from "node:assert/strict";
import { VirtualClock } from "../clock.ts";
import { type EventSink, KubeEventRecorder, microTime, NOTE_LIMIT_BYTES, truncateUtf8 } from "./events.ts";
import { Metrics } from "./metrics.ts";
import type { KubeObject, ResourceType } from "../types.ts";

interface Call {
  verb: "create" | "patch";
  rt: ResourceType;
  name: string;
  namespace?: string;
  body: KubeObject;
}

function recordingSink(opts: { fail?: boolean; gate?: Promise<void> } = {}): EventSink & { calls: Call[] } {
  const calls: Call[] = [];
  return {
    calls,
    async create(rt, obj, o) {
      await opts.gate;
      if (opts.fail) throw new Error("boom");
      calls.push({ verb: "create", rt, name: obj.metadata.name!, namespace: o?.namespace, body: obj });
      return obj;
    },
    async patch(rt, name, body, o) {
      await opts.gate;
      calls.push({ verb: "patch", rt, name, namespace: o.namespace, body: body as KubeObject });
      return body;
    },
  };
}

const pod: KubeObject = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "web-0", namespace: "shop", uid: "uid-1", resourceVersion: "42" },
};

Deno.test("an Event carries every field events.k8s.io/v1 requires", async () => {
  const clock = new VirtualClock(Date.UTC(2026, 0, 2, 3, 4, 5, 678));
  const sink = recordingSink();
  const rec = new KubeEventRecorder({
    sink,
    clock,
    reportingController: "kubeop.dev/at",
    reportingInstance: "kubeop-0",
  });
  rec.event(pod, { type: "Normal", reason: "Scheduled", action: "CreatePod", note: "pod created" });
  await rec.flush();
  assert.equal(sink.calls.length, 1);
  const { rt, body, namespace } = sink.calls[0];
  assert.equal(rt.group, "events.k8s.io");
  assert.equal(namespace, "shop");
  assert.equal(body.metadata.namespace, "shop");
  assert.match(body.metadata.name!, /^web-0\.[0-9a-f]+$/);
  assert.equal(body.eventTime, "2026-01-02T03:04:05.678000Z");
  assert.deepEqual(
    {
      reportingController: body.reportingController,
      reportingInstance: body.reportingInstance,
      action: body.action,
      reason: body.reason,
      type: body.type,
      note: body.note,
    },
    {
      reportingController: "kubeop.dev/at",
      reportingInstance: "kubeop-0",
      action: "CreatePod",
      reason: "Scheduled",
      type: "Normal",
      note: "pod created",
    },
  );
  assert.deepEqual(body.regarding, {
    apiVersion: "v1",
    kind: "Pod",
    name: "web-0",
    namespace: "shop",
    uid: "uid-1",
    resourceVersion: "42",
  });
});

Deno.test("repeats within the window become one Event with a series; later repeats start a new Event", async () => {
  const clock = new VirtualClock(0);
  const sink = recordingSink();
  const rec = new KubeEventRecorder({
    sink,
    clock,
    reportingController: "c",
    reportingInstance: "i",
    seriesWindowMs: 60_000,
  });
  const e = { type: "Warning", reason: "Failed", action: "Sync", note: "nope" } as const;
  rec.event(pod, e);
  await rec.flush();
  await clock.advance(1000);
  rec.event(pod, e);
  rec.event(pod, e);
  await rec.flush();
  const name = sink.calls[0].name;
  assert.equal(sink.calls.length, 2, "two repeats queued back to back coalesce into one patch");
  assert.deepEqual(sink.calls[1], {
    verb: "patch",
    rt: sink.calls[0].rt,
    name,
    namespace: "shop",
    body: { series: { count: 3, lastObservedTime: microTime(1000) } },
  });
  rec.event(pod, { ...e, note: "different" });
  await clock.advance(60_001);
  rec.event(pod, e);
  await rec.flush();
  assert.deepEqual(sink.calls.slice(2).map((c) => c.verb), ["create", "create"]);
  assert.notEqual(sink.calls[3].name, name);
});

Deno.test("cluster-scoped objects get their Events in default; notes are truncated to 1 KiB and bearer-free", async () => {
  const sink = recordingSink();
  const rec = new KubeEventRecorder({
    sink,
    clock: new VirtualClock(0),
    reportingController: "c",
    reportingInstance: "i",
  });
  const node = { apiVersion: "v1", kind: "Node", metadata: { name: "n1", uid: "u" } };
  rec.event(node, { type: "Normal", reason: "R", action: "A", note: "é".repeat(600) + " Bearer abc.def" });
  rec.event(node, { type: "Normal", reason: "R2", action: "A", note: "auth failed for Bearer abc.def" });
  await rec.flush();
  assert.equal(sink.calls[0].namespace, "default");
  const note = sink.calls[0].body.note as string;
  assert.ok(new TextEncoder().encode(note).length <= NOTE_LIMIT_BYTES);
  assert.ok(!note.includes("\uFFFD"), "no split character");
  assert.ok(!(sink.calls[1].body.note as string).includes("abc.def"));
  assert.equal(truncateUtf8("abc", 2), "ab");
});

Deno.test("event() never blocks or throws: a full buffer drops and counts, sink errors are counted", async () => {
  let open!: () => void;
  const gate = new Promise<void>((r) => open = r);
  const metrics = new Metrics();
  const sink = recordingSink({ gate });
  const rec = new KubeEventRecorder({
    sink,
    clock: new VirtualClock(0),
    reportingController: "c",
    reportingInstance: "i",
    metrics,
    bufferSize: 3,
  });
  for (let i = 0; i < 10; i++) rec.event(pod, { type: "Normal", reason: `R${i}`, action: "A" });
  rec.event({ metadata: undefined } as unknown as KubeObject, { type: "Normal", reason: "R", action: "A" });
  open();
  await rec.flush();
  assert.ok(sink.calls.length <= 4 && sink.calls.length >= 3, `sent ${sink.calls.length}`);
  assert.ok(await metrics.value("kubeop_events_dropped_total", { reason: "buffer_full" }) >= 6);

  const failing = new KubeEventRecorder({
    sink: recordingSink({ fail: true }),
    clock: new VirtualClock(0),
    reportingController: "c",
    reportingInstance: "i",
    metrics,
  });
  failing.event(pod, { type: "Warning", reason: "X", action: "A" });
  await failing.close();
  assert.equal(await metrics.value("kubeop_events_dropped_total", { reason: "error" }), 1);
});
