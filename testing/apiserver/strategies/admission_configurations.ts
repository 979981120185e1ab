/**
 * The admissionregistration.k8s.io/v1 kinds: Mutating/ValidatingWebhookConfigurations, ValidatingAdmissionPolicies
 * and their bindings, with the defaults kube-apiserver's SetDefaults_* fill in on create and update (failurePolicy
 * Fail, matchPolicy Equivalent, empty namespace and object selectors, timeoutSeconds 10, rule scope `*`, service port
 * 443, reinvocationPolicy Never for mutating webhooks); MutatingAdmissionPolicies default as ValidatingAdmissionPolicies. Webhook configurations are validated as
 * pkg/apis/admissionregistration/validation does for v1 (names, sideEffects, admissionReviewVersions, timeoutSeconds,
 * the enums, clientConfig url/service); policies are not validated beyond the generic checks.
 * @module
 */
import type { StatusCause } from "../../../runtime/client/errors.ts";
import { dns1123SubdomainErrors } from "../../../runtime/apimachinery/names.ts";
import type { ResourceStrategy } from "../strategy.ts";
import type { Unstructured as KubeObject } from "../unstructured.ts";
import { fieldDuplicate, fieldInvalid, fieldNotSupported, fieldRequired } from "../validation/field_errors.ts";
import { validateLabelSelector } from "../validation/label_selector.ts";
import { webhookRuleCauses } from "../validation/webhook_rules.ts";

function defaultRules(rules: KubeObject[] | undefined): void {
  for (const rule of rules ?? []) rule.scope ??= "*";
}

function defaultMatch(match: KubeObject | undefined): void {
  if (!match) return;
  match.namespaceSelector ??= {};
  match.objectSelector ??= {};
  match.matchPolicy ??= "Equivalent";
  defaultRules(match.resourceRules);
  defaultRules(match.excludeResourceRules);
}

/** utilvalidation.IsFullyQualifiedName. */
function fullyQualifiedName(field: string, name: unknown): StatusCause[] {
  if (typeof name !== "string" || name === "") return [fieldRequired(field)];
  const errs = dns1123SubdomainErrors(name);
  if (errs.length) return [fieldInvalid(field, name, errs.join(","))];
  if (name.split(".").length < 3) {
    return [fieldInvalid(field, name, "should be a domain with at least three segments separated by dots")];
  }
  return [];
}

const URL_FORM = "; desired format: https://host[/path]";

/** webhook.ValidateWebhookURL with https forced. */
function webhookUrl(field: string, raw: string): StatusCause[] {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return [fieldRequired(field, `url must be a valid URL: parse ${JSON.stringify(raw)}: invalid URL${URL_FORM}`)];
  }
  const out: StatusCause[] = [];
  const scheme = u.protocol.replace(/:$/, "");
  if (scheme !== "https") out.push(fieldInvalid(field, scheme, `'https' is the only allowed URL scheme${URL_FORM}`));
  if (!u.host) out.push(fieldInvalid(field, u.host, `host must be specified${URL_FORM}`));
  if (u.username || u.password) {
    out.push(fieldInvalid(field, `${u.username}`, `user information is not permitted in the URL${URL_FORM}`));
  }
  if (u.hash) out.push(fieldInvalid(field, u.hash.slice(1), `fragments are not permitted in the URL${URL_FORM}`));
  if (u.search) {
    out.push(fieldInvalid(field, u.search.slice(1), `query parameters are not permitted in the URL${URL_FORM}`));
  }
  return out;
}

/**
 * validateValidatingWebhookConfiguration / validateMutatingWebhookConfiguration of admissionregistration/v1, in kube's
 * order: per webhook its name, rules, policies, side effects, timeout, selectors, reinvocation (mutating), client
 * config, then its admissionReviewVersions and a repeated name.
 */
function validateWebhooks(obj: KubeObject, mutating: boolean): StatusCause[] {
  const out: StatusCause[] = [];
  const seen = new Set<string>();
  ((obj.webhooks ?? []) as KubeObject[]).forEach((hook, i) => {
    const at = `webhooks[${i}]`;
    out.push(...fullyQualifiedName(`${at}.name`, hook.name));
    ((Array.isArray(hook.rules) ? hook.rules : []) as KubeObject[]).forEach((rule, j) =>
      out.push(...webhookRuleCauses(rule, `${at}.rules[${j}]`))
    );
    if (!["Fail", "Ignore"].includes(hook.failurePolicy)) {
      out.push(fieldNotSupported(`${at}.failurePolicy`, hook.failurePolicy, ["Fail", "Ignore"]));
    }
    if (!["Equivalent", "Exact"].includes(hook.matchPolicy)) {
      out.push(fieldNotSupported(`${at}.matchPolicy`, hook.matchPolicy, ["Equivalent", "Exact"]));
    }
    if (hook.sideEffects === undefined || hook.sideEffects === null) {
      out.push(fieldRequired(`${at}.sideEffects`, "must specify one of None, NoneOnDryRun"));
    } else if (!["None", "NoneOnDryRun"].includes(hook.sideEffects)) {
      out.push(fieldNotSupported(`${at}.sideEffects`, hook.sideEffects, ["None", "NoneOnDryRun"]));
    }
    const timeout = hook.timeoutSeconds;
    if (typeof timeout === "number" && (timeout > 30 || timeout < 1)) {
      out.push(fieldInvalid(`${at}.timeoutSeconds`, timeout, "the timeout value must be between 1 and 30 seconds"));
    }
    out.push(...validateLabelSelector(hook.namespaceSelector, `${at}.namespaceSelector`));
    out.push(...validateLabelSelector(hook.objectSelector, `${at}.objectSelector`));
    if (mutating && !["Never", "IfNeeded"].includes(hook.reinvocationPolicy)) {
      out.push(fieldNotSupported(`${at}.reinvocationPolicy`, hook.reinvocationPolicy, ["IfNeeded", "Never"]));
    }
    const cc = hook.clientConfig ?? {};
    if ((cc.url === undefined) === (cc.service === undefined)) {
      out.push(fieldRequired(`${at}.clientConfig`, "exactly one of url or service is required"));
    } else if (cc.url !== undefined) {
      out.push(...webhookUrl(`${at}.clientConfig.url`, String(cc.url)));
    }
    const versions: unknown[] = Array.isArray(hook.admissionReviewVersions) ? hook.admissionReviewVersions : [];
    if (versions.length === 0) {
      out.push(fieldRequired(`${at}.admissionReviewVersions`, "must specify one of v1, v1beta1"));
    } else if (!versions.some((v) => v === "v1" || v === "v1beta1")) {
      out.push(fieldInvalid(`${at}.admissionReviewVersions`, versions, "must include at least one of v1, v1beta1"));
    }
    if (typeof hook.name === "string" && hook.name && seen.has(hook.name)) {
      out.push(fieldDuplicate(`${at}.name`, hook.name));
    }
    seen.add(hook.name);
  });
  return out;
}

function webhookDefaults(mutating: boolean): ResourceStrategy {
  return {
    validate: (obj) => validateWebhooks(obj, mutating),
    validateUpdate: (obj) => validateWebhooks(obj, mutating),
    default(obj) {
      for (const hook of (obj.webhooks ?? []) as KubeObject[]) {
        hook.failurePolicy ??= "Fail";
        hook.matchPolicy ??= "Equivalent";
        hook.namespaceSelector ??= {};
        hook.objectSelector ??= {};
        hook.timeoutSeconds ??= 10;
        if (mutating) hook.reinvocationPolicy ??= "Never";
        if (hook.clientConfig?.service) hook.clientConfig.service.port ??= 443;
        defaultRules(hook.rules);
      }
    },
  };
}

/** MutatingWebhookConfigurations. */
export const MUTATING_WEBHOOK_CONFIGURATIONS: ResourceStrategy = webhookDefaults(true);

/** ValidatingWebhookConfigurations. */
export const VALIDATING_WEBHOOK_CONFIGURATIONS: ResourceStrategy = webhookDefaults(false);

/** Validating- and MutatingAdmissionPolicies: failurePolicy Fail and the match defaults. */
export const VALIDATING_ADMISSION_POLICIES: ResourceStrategy = {
  default(obj) {
    if (!obj.spec) return;
    obj.spec.failurePolicy ??= "Fail";
    defaultMatch(obj.spec.matchConstraints);
  },
};

/** ValidatingAdmissionPolicyBindings. */
export const VALIDATING_ADMISSION_POLICY_BINDINGS: ResourceStrategy = {
  default(obj) {
    defaultMatch(obj.spec?.matchResources);
  },
};
