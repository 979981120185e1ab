/**
 * `application/json-patch+json` on the fake server: {@link applyJsonPatch} from runtime/apimachinery, with its
 * {@link PatchError}s answered as kube-apiserver answers them (a body that is not a list is 400 BadRequest; a failed
 * `test` and every other failure to apply is 422 Invalid).
 * @module
 */

import { ApiError, failureStatus } from "../../../runtime/client/errors.ts";
import { applyJsonPatch as apply, PatchError } from "../../../runtime/apimachinery/json_patch.ts";

/**
 * The ApiError kube-apiserver answers for `err` (handlers/patch.go): a body that is not a list of operations fails
 * to decode (400 BadRequest); every failure to apply one (a failed `test`, a missing path, an unknown op) is
 * 422 Invalid with the generic message and no detail.
 */
export function patchErrorStatus(err: PatchError): ApiError {
  if (err.reason === "NotAList") {
    return new ApiError(
      failureStatus(
        400,
        "BadRequest",
        "error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp",
      ),
      { verb: "patch" },
    );
  }
  // kube's NewGenericServerResponse: an empty details object.
  const status = failureStatus(422, "Invalid", "the server rejected our request due to an error in our request", {});
  return new ApiError(status, { verb: "patch" });
}

/**
 * Applies RFC 6902 operations and returns the patched document; `target` is not modified. Failures throw the
 * {@link ApiError} kube-apiserver would answer.
 *
 * @example
 * ```ts
 * import { applyJsonPatch } from "./json_patch.ts";
 * const out = applyJsonPatch({ spec: { replicas: 1 } }, [{ op: "replace", path: "/spec/replicas", value: 3 }]);
 * // out is { spec: { replicas: 3 } }
 * ```
 */
export function applyJsonPatch(target: unknown, ops: unknown): unknown {
  try {
    return apply(target, ops);
  } catch (err) {
    throw err instanceof PatchError ? patchErrorStatus(err) : err;
  }
}
