/** composeAdmissions: leader first, then shard; a refusal hands earlier tickets back; fences combine, the uid is carried. */
import assert from "node:assert/strict";
import { type Admission, type AdmissionTarget, composeAdmissions } from "./admission.ts";
import { kubeopLogger } from "../observe/log.ts";
import type { KubeObject } from "../types.ts";

const target = {
  controller: "c",
  forType: { group: "", version: "v1", kind: "ConfigMap", plural: "configmaps", namespaced: true },
  forInformer: {},
  requeue() {},
  log: kubeopLogger("test"),
} as unknown as AdmissionTarget<KubeObject>;

function door(name: string, log: string[], admit: boolean, fence?: AbortController): Admission {
  return {
    attach: () => ({
      admit: (key) => {
        log.push(`${name} ${key}`);
        if (!admit) return undefined;
        return {
          fence: fence && { check() {}, signal: fence.signal },
          uid: name === "shard" ? "u1" : undefined,
          done: (reconciled) => void log.push(`${name} done ${reconciled}`),
        };
      },
      close: () => void log.push(`${name} closed`),
    }),
  };
}

Deno.test("composed admission asks in order and hands tickets back when a later one refuses", () => {
  const log: string[] = [];
  const door1 = composeAdmissions([door("leader", log, true), door("shard", log, false)])!.attach(target);
  assert.equal(door1.admit("ns/a", undefined), undefined);
  assert.deepEqual(log, ["leader ns/a", "shard ns/a", "leader done false"]);
  log.length = 0;
  const door2 = composeAdmissions([door("leader", log, false), door("shard", log, true)])!.attach(target);
  assert.equal(door2.admit("ns/a", undefined), undefined);
  assert.deepEqual(log, ["leader ns/a"], "the shard is not asked once the leader refused");
  door2.close();
  assert.deepEqual(log.slice(1), ["leader closed", "shard closed"]);
});

Deno.test("a composed ticket's fence aborts with either fence and carries the shard's uid", () => {
  const log: string[] = [];
  const leader = new AbortController();
  const shard = new AbortController();
  const ticket = composeAdmissions([door("leader", log, true, leader), door("shard", log, true, shard)])!
    .attach(target).admit("ns/a", undefined)!;
  assert.equal(ticket.uid, "u1");
  assert.equal(ticket.fence!.signal.aborted, false);
  shard.abort();
  assert.equal(ticket.fence!.signal.aborted, true);
  ticket.done(true);
  assert.deepEqual(log.slice(-2), ["leader done true", "shard done true"]);
});
