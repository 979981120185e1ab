/**
 * The shard gate as a controller's {@link Admission} (docs/sharding.md): a key is reconciled only when the uid it
 * names lies in a bucket active on this replica. The uid comes from the cache or — for a deleted object — from the
 * uid the key last had (remembered here, so a delete is reconciled by the owner of that uid's bucket). A bucket that
 * becomes active has its cached (and remembered deleted) keys queued: they were dropped while it was elsewhere. The
 * admitted reconcile writes under the bucket's fence, and its writes to the reconciled object carry the uid (the
 * write chain of runtime/controller/write_path.ts).
 * @module
 */

import type { Admission, AdmissionTarget, AdmissionTicket, KeyAdmission } from "../controller/admission.ts";
import { type KubeObject, objectKey } from "../types.ts";
import type { ShardAdmission } from "./shard_gate.ts";

/** Most deleted keys whose uid a sharded controller remembers (oldest forgotten first). */
export const MAX_GONE_UIDS = 10_000;

/**
 * Admits the keys of the buckets `shards` holds active.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FakeCluster } from "../../testing/mod.ts";
 * import { VirtualClock } from "../clock.ts";
 * import { kubeopLogger } from "../observe/log.ts";
 * import { CoreTypes } from "../types.ts";
 * import { shardAdmission } from "./shard_admission.ts";
 * import { ShardGate } from "./shard_gate.ts";
 * const gate = new ShardGate({ buckets: 1, clock: new VirtualClock() }); // a ShardRing's gate
 * const cluster = new FakeCluster();
 * const cm = cluster.create(CoreTypes.ConfigMap, { metadata: { name: "a", namespace: "default" } });
 * const door = shardAdmission(gate).attach({
 *   controller: "configmaps",
 *   forType: CoreTypes.ConfigMap,
 *   forInformer: cluster.informers.get(CoreTypes.ConfigMap),
 *   requeue: () => {},
 *   log: kubeopLogger("example"),
 * });
 * assert.equal(door.admit("default/a", cm), undefined); // its uid's bucket is not held here
 * gate.hold(0, { check() {}, signal: new AbortController().signal }); // the bucket Lease is won…
 * gate.activate(0); // …and its slice listed
 * const ticket = door.admit("default/a", cm)!;
 * assert.equal(ticket.uid, cm.metadata.uid); // writes to default/a must carry this uid
 * ticket.done(true);
 * door.close();
 * ```
 */
export function shardAdmission(shards: ShardAdmission): Admission {
  return { attach: (target) => followShards(shards, target) };
}

/** One controller's shard door: the gone-uid memory, the bucket-activation requeue, and the tickets. */
function followShards<T extends KubeObject>(shards: ShardAdmission, target: AdmissionTarget<T>): KeyAdmission<T> {
  const { forInformer } = target;
  const goneUids = new Map<string, string>();
  const offHandler = forInformer.addHandler({
    added: (obj) => void goneUids.delete(objectKey(obj)),
    deleted: (obj) => {
      if (!obj.metadata.uid) return;
      const key = objectKey(obj);
      goneUids.delete(key);
      goneUids.set(key, obj.metadata.uid);
      if (goneUids.size > MAX_GONE_UIDS) goneUids.delete(goneUids.keys().next().value!);
    },
  });
  const offActivated = shards.onActivated((buckets) => {
    const gained = new Set(buckets);
    for (const obj of forInformer.store.list()) {
      if (obj.metadata.uid && gained.has(shards.bucketOfUid(obj.metadata.uid))) target.requeue(objectKey(obj));
    }
    for (const [key, uid] of goneUids) if (gained.has(shards.bucketOfUid(uid))) target.requeue(key);
  });
  return {
    admit(key, obj): AdmissionTicket | undefined {
      const uid = obj?.metadata.uid ?? goneUids.get(key);
      const ticket = uid ? shards.admit(uid) : undefined;
      if (!ticket) {
        // Another replica's bucket (or a uid never seen here): its owner reconciles it; a bucket gained later
        // re-queues the key.
        target.log.debug("not reconciling {key}: its uid is in no shard bucket this replica holds", { key });
        return undefined;
      }
      return {
        fence: ticket.fence,
        uid: ticket.uid,
        done(reconciled) {
          if (reconciled && !obj) goneUids.delete(key); // the delete was reconciled
          ticket.done();
        },
      };
    },
    close() {
      offHandler();
      offActivated();
    },
  };
}
