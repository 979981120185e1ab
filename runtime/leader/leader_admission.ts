/**
 * The leader's {@link Admission}: no reconcile starts while the write fence is closed (this replica is not —
 * provably — the leader any more; the manager is stopping the controllers and the next leader reconciles), and each
 * admitted reconcile carries the fence, so losing the Lease aborts its in-flight calls.
 * @module
 */

import { resourceId } from "../apimachinery/names.ts";
import type { Admission, AdmissionTarget, KeyAdmission } from "../controller/admission.ts";
import { type KubeObject, splitKey } from "../types.ts";
import type { WriteFence } from "./write_fence.ts";

/**
 * Admits keys while `fence` is open.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FakeCluster } from "../../testing/mod.ts";
 * import { VirtualClock } from "../clock.ts";
 * import { kubeopLogger } from "../observe/log.ts";
 * import { CoreTypes } from "../types.ts";
 * import { leaderAdmission } from "./leader_admission.ts";
 * import { LeaderFence } from "./write_fence.ts";
 * const clock = new VirtualClock();
 * const fence = new LeaderFence({ clock, renewDeadlineMs: 10_000, lease: "default/kubeop", identity: "a" }); // elector.fence
 * const cluster = new FakeCluster();
 * // The Manager passes it to every controller as ControllerDeps.admission; a controller attaches once.
 * const door = leaderAdmission(fence).attach({
 *   controller: "configmaps",
 *   forType: CoreTypes.ConfigMap,
 *   forInformer: cluster.informers.get(CoreTypes.ConfigMap),
 *   requeue: () => {},
 *   log: kubeopLogger("example"),
 * });
 * assert.equal(door.admit("default/a", undefined), undefined); // not leading: the key is dropped
 * fence.open(clock.nowMonotonic());
 * const ticket = door.admit("default/a", undefined)!; // leading: the reconcile's writes carry the fence
 * assert.equal(ticket.fence, fence);
 * ticket.done(true);
 * door.close();
 * ```
 */
export function leaderAdmission(fence: WriteFence): Admission {
  return {
    attach<T extends KubeObject>(target: AdmissionTarget<T>): KeyAdmission<T> {
      const resource = resourceId(target.forType);
      return {
        admit(key) {
          const { namespace, name } = splitKey(key);
          try {
            fence.check({ verb: "reconcile", resource, namespace, name });
          } catch (error) {
            target.log.info("not starting the reconcile of {key}: {error}", { key, error });
            return undefined;
          }
          return { fence, done() {} };
        },
        close() {},
      };
    },
  };
}
