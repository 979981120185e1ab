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
 * ```ts ignore
 * const deps = { client, informers, recorder, clock, admission: leaderAdmission(elector.fence) };
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
