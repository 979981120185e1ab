/**
 * The write options an HTTP create, update or patch gives the fake store: the field manager (explicit, or derived
 * from the User-Agent as kube-apiserver does), field validation, and — for writes through admission webhooks and
 * policies — the request's admission steps.
 * @module
 */
import type { Unstructured as KubeObject } from "./unstructured.ts";
import type { ResourceDef } from "./resource_def.ts";
import type { UserInfo } from "./user_info.ts";
import { type AdmissionRequestInfo, type RequestAdmission, writeWithAdmission } from "./admission_replay.ts";

/** The default field manager kube-apiserver derives from the User-Agent (`kubectl/v1.32 ...` → `kubectl`). */
export function fieldManagerOf(req: Request, q: URLSearchParams): string {
  const explicit = q.get("fieldManager");
  if (explicit) return explicit;
  const agent = req.headers.get("user-agent") ?? "unknown";
  return agent.split("/")[0].trim().slice(0, 128) || "unknown";
}

/** The write options a request gives (query and User-Agent); `warnings` collects the write's. */
export function writeOptions(req: Request, q: URLSearchParams, warnings: string[]) {
  return {
    fieldManager: fieldManagerOf(req, q),
    fieldValidation: q.get("fieldValidation") ?? "Warn",
    warnings,
    // The answer is only serialized: no copy of the stored object.
    shared: true,
  };
}

/**
 * A write of `sent` as `target` (the served or, converting, the storage version) through admission (webhooks,
 * policies; replayed around the awaited calls), `write` given the request's write options and admission steps.
 */
export function admittedWrite<T>(
  call: { req: Request; q: URLSearchParams; admission: AdmissionRequestInfo; warnings: string[] },
  write: (
    target: ResourceDef,
    sent: KubeObject,
    options: ReturnType<typeof writeOptions> & { admission: RequestAdmission | undefined; user: UserInfo },
  ) => T,
): (target: ResourceDef, sent: KubeObject) => Promise<T> {
  const { req, q, admission, warnings } = call;
  return (target, sent) =>
    writeWithAdmission(
      { ...admission, def: target },
      warnings,
      (steps, w) => write(target, sent, { ...writeOptions(req, q, w), admission: steps, user: admission.user }),
    );
}
