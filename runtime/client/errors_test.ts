import assert from "node:assert/strict";
import {
  ApiError,
  failureStatus,
  isAlreadyExists,
  isClientError,
  isConflict,
  isForbidden,
  isGone,
  isInvalid,
  isNotFound,
  isRetriable,
  isServerError,
  isTooManyRequests,
  isUnauthorized,
  NotLeaderError,
  TerminalError,
} from "./errors.ts";

const apiError = (code: number, reason: string) =>
  new ApiError(failureStatus(code, reason, "x"), { verb: "get", resource: "configmaps", name: "a" });

const predicates = {
  isNotFound,
  isAlreadyExists,
  isConflict,
  isGone,
  isInvalid,
  isForbidden,
  isUnauthorized,
  isTooManyRequests,
  isClientError,
  isServerError,
  isRetriable,
};
type Name = keyof typeof predicates;

/** Each status and the predicates that hold for it (all others must not). */
const table: { code: number; reason: string; holds: Name[] }[] = [
  { code: 401, reason: "Unauthorized", holds: ["isUnauthorized", "isClientError"] },
  { code: 403, reason: "Forbidden", holds: ["isForbidden", "isClientError"] },
  { code: 404, reason: "NotFound", holds: ["isNotFound", "isClientError"] },
  { code: 409, reason: "AlreadyExists", holds: ["isAlreadyExists", "isClientError"] },
  { code: 409, reason: "Conflict", holds: ["isConflict", "isClientError"] },
  { code: 410, reason: "Expired", holds: ["isGone", "isClientError"] },
  { code: 422, reason: "Invalid", holds: ["isInvalid", "isClientError"] },
  { code: 429, reason: "TooManyRequests", holds: ["isTooManyRequests", "isClientError", "isRetriable"] },
  { code: 500, reason: "InternalError", holds: ["isServerError", "isRetriable"] },
  { code: 504, reason: "Timeout", holds: ["isServerError", "isRetriable"] },
];

for (const { code, reason, holds } of table) {
  Deno.test(`error predicates: a thrown ${code} ${reason} satisfies exactly ${holds.join(", ")}`, () => {
    const err = apiError(code, reason);
    for (const [name, pred] of Object.entries(predicates)) {
      assert.equal(pred(err), holds.includes(name as Name), `${name}(${code} ${reason})`);
    }
  });
}

Deno.test("error predicates read a Status object from a watch stream like a thrown ApiError", () => {
  assert.equal(isGone(failureStatus(410, "Expired", "too old resource version")), true);
  assert.equal(isUnauthorized(failureStatus(401, "Unauthorized", "")), true);
  assert.equal(isAlreadyExists(failureStatus(409, "AlreadyExists", "")), true);
  assert.equal(isConflict(failureStatus(409, "AlreadyExists", "")), false);
  assert.equal(isServerError(failureStatus(500, "InternalError", "")), true);
  // Only an object that says it is a Status counts; other values with a numeric code do not.
  assert.equal(isGone({ code: 410 }), false);
  assert.equal(isNotFound(undefined), false);
  assert.equal(isClientError(null), false);
});

Deno.test("isRetriable: network errors yes, TerminalError and NotLeaderError no", () => {
  assert.equal(isRetriable(new TypeError("fetch failed")), true);
  assert.equal(isRetriable(new TerminalError("bad spec")), false);
  const notLeader = new NotLeaderError({ call: { verb: "update" }, lease: "ns/l", identity: "a", renewDeadlineMs: 1 });
  assert.equal(isRetriable(notLeader), false);
  assert.equal(isClientError(new Error("x")), false);
});
