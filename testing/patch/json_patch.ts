/**
 * `application/json-patch+json` on the fake server: {@link applyJsonPatch} from runtime/apimachinery, with its
 * {@link PatchError}s answered as kube-apiserver answers them (a failed `test` or a body that is not a list is
 * 422 Invalid; other failures surface from the jsonpatch library as 500 InternalError).
 * @module
 */

import { ApiError, failureStatus } from "../../runtime/errors.ts";
import { applyJsonPatch as apply, PatchError } from "../../runtime/apimachinery/json_patch.ts";

/** The ApiError kube-apiserver answers for `err`. */
export function patchErrorStatus(err: PatchError): ApiError {
  const code = err.reason === "TestFailed" || err.reason === "NotAList" ? 422 : 500;
  const message = err.reason === "NotAList"
    ? "the server rejected our request due to an error in our request"
    : err.message;
  const status = failureStatus(code, code === 422 ? "Invalid" : "InternalError", message);
  if (code === 500) status.details = { causes: [{ message }] };
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
