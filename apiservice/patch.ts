/**
 * The two patch formats a custom resource accepts besides apply: JSON merge patch (RFC 7386) and JSON patch
 * (RFC 6902), both from runtime/apimachinery. JSON patch failures become ApiErrors the router sends as Status:
 * 422 when the patch does not apply (a test op failed, a path is missing), 400 when the patch itself is malformed.
 * @module
 */
import { ApiError, failureStatus } from "../runtime/client/errors.ts";
import { applyJsonPatch as apply, PatchError, TEST_FAILED_MESSAGE } from "../runtime/apimachinery/json_patch.ts";

export { applyMergePatch } from "../runtime/apimachinery/merge_patch.ts";

/** The ApiError this server answers for a JSON patch that failed. */
function patchErrorStatus(err: PatchError): ApiError {
  if (err.reason === "TestFailed" || err.reason === "NotApplicable") {
    const message = err.reason === "TestFailed" ? err.message : `${TEST_FAILED_MESSAGE}: ${err.message}`;
    return new ApiError(failureStatus(422, "Invalid", message), { verb: "patch" });
  }
  return new ApiError(failureStatus(400, "BadRequest", err.message), { verb: "patch" });
}

/** Applies an RFC 6902 JSON patch (add, remove, replace, move, copy, test) to a copy of `target`. */
export function applyJsonPatch(target: unknown, patch: unknown): unknown {
  try {
    return apply(target, patch);
  } catch (err) {
    throw err instanceof PatchError ? patchErrorStatus(err) : err;
  }
}
