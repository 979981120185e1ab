/**
 * Exact assertions on the Status a failed request answers: code, reason, message and causes (field, reason,
 * message), as the validation, defaulting and deletion conformance cases compare them with kube-apiserver's.
 * @module
 */
import assert from "node:assert/strict";
import { ApiError, type Status, type StatusCause } from "../../runtime/client/errors.ts";
import type { KubeClient } from "../../runtime/client/client.ts";

/** What a failed request must answer; `causes` compared in order unless `sortCauses`. */
export interface ExpectedStatus {
  code: number;
  /** Absent: the Status has no reason (kube's unclassified 500s). */
  reason?: string;
  message: string | RegExp;
  causes?: StatusCause[];
  /** Compare causes as a set (kube iterates Go maps: data keys come in any order). */
  sortCauses?: boolean;
}

const byText = (a: StatusCause, b: StatusCause) => `${a.field} ${a.message}`.localeCompare(`${b.field} ${b.message}`);

/** Asserts a Status against what kube-apiserver answers. */
export function assertStatus(status: Status, want: ExpectedStatus, what: string): void {
  assert.equal(status.code, want.code, `${what}: code (${JSON.stringify(status)})`);
  assert.equal(status.reason, want.reason, `${what}: reason (${status.message})`);
  if (want.message instanceof RegExp) assert.match(status.message ?? "", want.message, `${what}: message`);
  else assert.equal(status.message, want.message, `${what}: message`);
  if (want.causes) {
    const got = (status.details?.causes ?? []).map((c) => ({ reason: c.reason, message: c.message, field: c.field }));
    const expected = want.causes.map((c) => ({ reason: c.reason, message: c.message, field: c.field }));
    if (want.sortCauses) assert.deepEqual(got.sort(byText), expected.sort(byText), `${what}: causes`);
    else assert.deepEqual(got, expected, `${what}: causes`);
  }
}

/** Awaits `p`, which must fail with an ApiError whose Status is `want`; returns the Status. */
export async function expectStatus(p: Promise<unknown>, want: ExpectedStatus, what: string): Promise<Status> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof ApiError, `${what}: not an ApiError: ${err}`);
    assertStatus(err.status, want, what);
    return err.status;
  }
  assert.fail(`${what}: expected HTTP ${want.code}`);
}

/** A raw request's status code and JSON body (for answers the typed client reads as objects). */
export async function rawJson(
  client: KubeClient,
  method: string,
  path: string,
  opts: { body?: unknown; query?: Record<string, string | number | boolean>; contentType?: string } = {},
  // deno-lint-ignore no-explicit-any
): Promise<{ code: number; body: any }> {
  const res = await client.request(method, path, opts);
  const text = new TextDecoder().decode(res.body);
  return { code: res.status, body: text ? JSON.parse(text) : undefined };
}

/** One 422 cause, for brevity. */
export const cause = (reason: string, field: string, message: string): StatusCause => ({ reason, message, field });

/** A 422 Status's causes as `field: message` lines, in order (an object without causes: none). */
export function causeTexts(status: { details?: { causes?: StatusCause[] } } | undefined): string[] {
  return (status?.details?.causes ?? []).map((c) => `${c.field}: ${c.message}`);
}

/**
 * Asserts a raw answer (tests/conformance/support.ts sendBody) is 422 with exactly `causes` as `field: message` lines,
 * in order; `what` names the case in the failure.
 */
export function assertCauses(answer: { code: number; json: unknown }, causes: string[], what = ""): void {
  assert.equal(answer.code, 422, `${what}: ${JSON.stringify(answer.json)}`);
  assert.deepEqual(causeTexts(answer.json as Parameters<typeof causeTexts>[0]), causes, what);
}
