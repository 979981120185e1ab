/**
 * The admissionregistration.k8s.io/v1 kinds: Mutating/ValidatingWebhookConfigurations, ValidatingAdmissionPolicies
 * and their bindings, with the defaults kube-apiserver's SetDefaults_* fill in on create and update (failurePolicy
 * Fail, matchPolicy Equivalent, empty namespace and object selectors, timeoutSeconds 10, rule scope `*`, service port
 * 443, reinvocationPolicy Never for mutating webhooks). They are not validated beyond the generic checks.
 * @module
 */
import type { ResourceStrategy } from "../strategy.ts";
import type { Unstructured as KubeObject } from "../unstructured.ts";

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

function webhookDefaults(mutating: boolean): ResourceStrategy {
  return {
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

/** ValidatingAdmissionPolicies. */
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
