/**
 * apiregistration.k8s.io APIServices (k8s.io/kube-aggregator pkg/registry/apiservice and pkg/apis/apiregistration
 * validation): the name is a path segment equal to `<spec.version>.<spec.group>`, the group a DNS-1123 subdomain
 * (empty only for v1), the version a DNS-1035 label, the priorities in range; a local APIService (no `spec.service`)
 * may carry no TLS settings, a remote one needs the Service's namespace, name and a valid port (default 443). A
 * create drops any status sent and marks a local APIService Available at once (kube's PrepareForCreate); afterwards
 * the status belongs to the availability check (testing/apiserver/apiservice_controller.ts) and an update of the
 * main resource keeps the stored one (status subresource).
 * @module
 */
import type { StatusCause } from "../../../runtime/client/errors.ts";
import { dns1035LabelErrors, dns1123SubdomainErrors } from "../../../runtime/apimachinery/names.ts";
import type { Unstructured as KubeObject } from "../unstructured.ts";
import { rfc3339, validatePathSegmentName } from "../object_rules.ts";
import type { ResourceStrategy, StrategyContext } from "../strategy.ts";
import { fieldInvalid, fieldNotSupported, fieldRequired } from "../validation/field_errors.ts";

/** The condition kube's PrepareForCreate gives a local APIService (NewLocalAvailableAPIServiceCondition). */
export const LOCAL_AVAILABLE = { reason: "Local", message: "Local APIServices are always available" } as const;

/** `metadata.name` (and generateName) must be `version.group`, once it is a valid path segment. */
function nameCauses(obj: KubeObject): StatusCause[] {
  const spec = obj.spec ?? {};
  const required = `${spec.version ?? ""}.${spec.group ?? ""}`;
  const detail = `must be \`spec.version+"."+spec.group\`: ${JSON.stringify(required)}`;
  const out: StatusCause[] = [];
  for (const key of ["generateName", "name"] as const) {
    const value = obj.metadata[key];
    if (typeof value !== "string" || !value || validatePathSegmentName(value).length > 0) continue;
    if (value !== required) out.push(fieldInvalid(`metadata.${key}`, value, detail));
  }
  return out;
}

/** The decoded length of a base64 `[]byte` field (the decoder refused bodies whose value is not base64). */
function base64Length(text: string): number {
  try {
    return atob(text).length;
  } catch {
    return text.length;
  }
}

function specCauses(spec: KubeObject["spec"]): StatusCause[] {
  const out: StatusCause[] = [];
  const group = String(spec.group ?? "");
  const version = String(spec.version ?? "");
  if (!group && version !== "v1") {
    out.push(fieldRequired("spec.group", "only v1 may have an empty group and it better be legacy kube"));
  }
  if (group) { for (const m of dns1123SubdomainErrors(group)) out.push(fieldInvalid("spec.group", group, m)); }
  for (const m of dns1035LabelErrors(version)) out.push(fieldInvalid("spec.version", version, m));
  const groupPriority = Number(spec.groupPriorityMinimum ?? 0);
  if (groupPriority <= 0 || groupPriority > 20000) {
    out.push(fieldInvalid("spec.groupPriorityMinimum", groupPriority, "must be positive and less than 20000"));
  }
  const versionPriority = Number(spec.versionPriority ?? 0);
  if (versionPriority <= 0 || versionPriority > 1000) {
    out.push(fieldInvalid("spec.versionPriority", versionPriority, "must be positive and less than 1000"));
  }
  const caBytes = typeof spec.caBundle === "string" ? base64Length(spec.caBundle) : 0;
  const service = spec.service;
  if (service == null) {
    if (caBytes > 0) {
      out.push(fieldInvalid("spec.caBundle", `${caBytes} bytes`, "local APIServices may not have a caBundle"));
    }
    if (spec.insecureSkipTLSVerify === true) {
      out.push(
        fieldInvalid("spec.insecureSkipTLSVerify", true, "local APIServices may not have insecureSkipTLSVerify"),
      );
    }
    return out;
  }
  if (!service.namespace) out.push(fieldRequired("spec.service.namespace"));
  if (!service.name) out.push(fieldRequired("spec.service.name"));
  const port = Number(service.port ?? 443);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    out.push(fieldInvalid("spec.service.port", port, "port is not valid: must be between 1 and 65535, inclusive"));
  }
  if (spec.insecureSkipTLSVerify === true && caBytes > 0) {
    out.push(fieldInvalid("spec.insecureSkipTLSVerify", true, "may not be true if caBundle is present"));
  }
  return out;
}

function validateApiService(obj: KubeObject, ctx: StrategyContext): StatusCause[] {
  if (ctx.subresource === "status") {
    return (obj.status?.conditions ?? []).flatMap((c: KubeObject, i: number) =>
      ["True", "False", "Unknown"].includes(c?.status)
        ? []
        : [fieldNotSupported(`status.conditions[${i}].status`, c?.status ?? "", ["True", "False", "Unknown"])]
    );
  }
  return [...nameCauses(obj), ...specCauses(obj.spec ?? {})];
}

/** The strategy of apiregistration.k8s.io/v1 apiservices. */
export const APISERVICES: ResourceStrategy = {
  validateName: validatePathSegmentName,
  default(obj: KubeObject): void {
    const service = obj.spec?.service;
    if (service && typeof service === "object" && service.port === undefined) service.port = 443;
  },
  prepareForCreate(obj: KubeObject, ctx: StrategyContext): void {
    obj.status = {};
    if (obj.spec?.service != null) return;
    const lastTransitionTime = rfc3339(ctx.clock.now());
    obj.status.conditions = [{ type: "Available", status: "True", lastTransitionTime, ...LOCAL_AVAILABLE }];
  },
  validate: validateApiService,
  validateUpdate: (next, _old, ctx) => validateApiService(next, ctx),
};
