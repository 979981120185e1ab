/**
 * One conformance suite, two targets (STYLE §14): the same cases run against the fake API server (default tier,
 * tests/conformance_fake_test.ts) and a real kube-apiserver (tests/real/conformance_real_test.ts). A case that
 * passes on the real server and fails on the fake is a bug in the fake. Cases live in one file per topic; they run
 * in the order below, in one namespace (later topics may use objects earlier ones made, e.g. the Widget CRD).
 * @module
 */
import { KubeClient } from "../../runtime/client/client.ts";
import { loadKubeconfigFile } from "../../runtime/client/kubeconfig.ts";
import { CoreTypes, type KubeObject } from "../../runtime/types.ts";
import { admissionConfigurationCases } from "./admission_configurations.ts";
import { admissionManagedFieldCases } from "./admission_managed_fields.ts";
import { admissionWebhookCases } from "./admission_webhooks.ts";
import { admissionWebhookCrdCases } from "./admission_webhooks_crd.ts";
import { admissionPolicyCases } from "./admission_policies.ts";
import { authzCases } from "./authz.ts";
import { authzAnonymousCases } from "./authz_anonymous.ts";
import { crdConversionCases } from "./crd_conversion.ts";
import { crdCases } from "./crd.ts";
import { crdCelCases } from "./crd_cel.ts";
import { crdDefinitionCases } from "./crd_definitions.ts";
import { crdDeletionCases } from "./crd_deletion.ts";
import { crdObjectCases } from "./crd_objects.ts";
import { crudCases } from "./crud.ts";
import { defaultingCases } from "./defaulting.ts";
import { deletionCases } from "./deletion.ts";
import { deprecationCases } from "./deprecation.ts";
import { decodingCases } from "./decoding.ts";
import { decodingBodyCases } from "./decoding_bodies.ts";
import { decodingNamedTypeCases } from "./decoding_named_types.ts";
import { decodingUnknownCases } from "./decoding_unknown.ts";
import { decodingUnknownFieldCases } from "./decoding_unknown_fields.ts";
import { deletionApiCases } from "./deletion_api.ts";
import { discoveryCases } from "./discovery.ts";
import { healthCases } from "./health.ts";
import { kindFidelityCases } from "./kind_fidelity.ts";
import { kindStrategyCases } from "./kind_strategies.ts";
import { kindValidationCases } from "./kind_validation.ts";
import { httpCases } from "./http.ts";
import { limitsQuotaCases } from "./limits_quota.ts";
import { listCases } from "./list.ts";
import { managedFieldsCases } from "./managed_fields.ts";
import { listEncodingCases } from "./list_encoding.ts";
import { managedFieldShapeCases } from "./managed_fields_shapes.ts";
import { namespaceTerminationCases } from "./namespace_termination.ts";
import { openApiV2Cases } from "./openapi_v2.ts";
import { patchCases } from "./patch.ts";
import { patchOptionCases } from "./patch_options.ts";
import { podAdmissionCases } from "./pod_admission.ts";
import { podSubresourceWriteCases } from "./pod_subresource_writes.ts";
import { protobufAnswerCases } from "./protobuf_answers.ts";
import { serviceAccountAdmissionCases } from "./service_account_admission.ts";
import { serverFilledCases } from "./server_filled.ts";
import { shardedListWatchCases } from "./sharded_list_watch.ts";
import { statusDetailCases } from "./status_details.ts";
import { subresourceCases } from "./subresources.ts";
import { storedShapeCases } from "./stored_shape.ts";
import { storageProtectionCases } from "./storage_protection.ts";
import { hpaVersionCases } from "./hpa_versions.ts";
import { hpaValidationCases } from "./hpa_validation.ts";
import { storedQuantityCases } from "./stored_quantities.ts";
import { resourceQuotaValidationCases } from "./resource_quota_validation.ts";
import { limitRangeValidationCases } from "./limit_range_validation.ts";
import { networkValidationCases } from "./network_validation.ts";
import { workloadRuleCases } from "./workload_rules.ts";
import type { ConformanceCase, ConformanceTarget, TargetName } from "./support.ts";
import { conditionalUpdateCases } from "./conditional_updates.ts";
import { requiredFieldCases } from "./required_fields.ts";
import { reviewMetadataCases } from "./review_metadata.ts";
import { replicationControllerScaleCases } from "./replication_controller_scale.ts";
import { tablePrinterCases } from "./table_printers.ts";
import { validationKindCases } from "./validation_kinds.ts";
import { validationMetaCases } from "./validation_meta.ts";
import { validationWorkloadCases } from "./validation_workloads.ts";
import { watchCases } from "./watch.ts";
import { watchFidelityCases } from "./watch_fidelity.ts";
import { webhookSelfSignedCases } from "./webhook_self_signed.ts";
import { writePathCases } from "./write_paths.ts";

export type { ConformanceCase, ConformanceContext, ConformanceTarget, TargetName } from "./support.ts";
export { POLL } from "./support.ts";

/** Every topic's cases, in run order. */
export const TOPICS: ReadonlyArray<{ topic: string; cases: ConformanceCase[] }> = [
  { topic: "crud", cases: crudCases },
  { topic: "crd", cases: crdCases },
  { topic: "crd-cel", cases: crdCelCases },
  { topic: "crd-definitions", cases: crdDefinitionCases },
  { topic: "crd-deletion", cases: crdDeletionCases },
  { topic: "crd-objects", cases: crdObjectCases },
  { topic: "deprecation", cases: deprecationCases },
  { topic: "discovery", cases: discoveryCases },
  { topic: "openapi", cases: openApiV2Cases },
  { topic: "subresources", cases: subresourceCases },
  { topic: "subresources", cases: replicationControllerScaleCases },
  { topic: "pod-subresources", cases: podSubresourceWriteCases },
  { topic: "protobuf", cases: protobufAnswerCases },
  { topic: "list", cases: listCases },
  { topic: "list", cases: listEncodingCases },
  { topic: "list", cases: tablePrinterCases },
  { topic: "watch", cases: watchCases },
  { topic: "watch", cases: watchFidelityCases },
  { topic: "sharded-list-watch", cases: shardedListWatchCases },
  { topic: "deletion", cases: deletionCases },
  { topic: "validation", cases: validationMetaCases },
  { topic: "validation", cases: validationKindCases },
  { topic: "validation", cases: validationWorkloadCases },
  { topic: "validation", cases: workloadRuleCases },
  { topic: "validation", cases: conditionalUpdateCases },
  { topic: "validation", cases: requiredFieldCases },
  { topic: "validation", cases: reviewMetadataCases },
  { topic: "defaulting", cases: defaultingCases },
  { topic: "defaulting", cases: storedShapeCases },
  { topic: "defaulting", cases: storedQuantityCases },
  { topic: "server-filled", cases: serverFilledCases },
  { topic: "hpa-versions", cases: hpaVersionCases },
  { topic: "hpa-versions", cases: hpaValidationCases },
  { topic: "deletion", cases: deletionApiCases },
  { topic: "deletion", cases: namespaceTerminationCases },
  { topic: "patch", cases: patchCases },
  { topic: "patch", cases: patchOptionCases },
  { topic: "managed-fields", cases: managedFieldsCases },
  { topic: "write-paths", cases: writePathCases },
  { topic: "patch", cases: managedFieldShapeCases },
  { topic: "http", cases: httpCases },
  { topic: "http", cases: healthCases },
  { topic: "http", cases: statusDetailCases },
  { topic: "decoding", cases: decodingCases },
  { topic: "decoding", cases: decodingBodyCases },
  { topic: "decoding", cases: decodingUnknownCases },
  { topic: "decoding", cases: decodingUnknownFieldCases },
  { topic: "decoding", cases: decodingNamedTypeCases },
  { topic: "authz", cases: authzAnonymousCases },
  { topic: "admission-webhooks", cases: admissionWebhookCases },
  { topic: "admission-webhooks", cases: admissionWebhookCrdCases },
  { topic: "admission-webhooks", cases: admissionConfigurationCases },
  { topic: "admission-policies", cases: admissionPolicyCases },
  { topic: "crd-conversion", cases: crdConversionCases },
  { topic: "webhook-tls", cases: webhookSelfSignedCases },
  { topic: "pod-admission", cases: podAdmissionCases },
  { topic: "limits-quota", cases: limitsQuotaCases },
  { topic: "limits-quota", cases: resourceQuotaValidationCases },
  { topic: "limits-quota", cases: limitRangeValidationCases },
  { topic: "storage-protection", cases: storageProtectionCases },
  { topic: "pod-admission", cases: serviceAccountAdmissionCases },
  { topic: "pod-admission", cases: admissionManagedFieldCases },
  { topic: "kind-fidelity", cases: kindFidelityCases },
  { topic: "kind-strategies", cases: kindStrategyCases },
  { topic: "kind-strategies", cases: kindValidationCases },
  { topic: "kind-strategies", cases: networkValidationCases },
];

/**
 * `KUBEOP_CONFORMANCE_TOPICS=decoding,watch` runs only those topics' cases (the others are reported ignored): for
 * working on a few cases against the real tier without its whole run. Unset: every topic.
 */
const ONLY_TOPICS = Deno.env.get("KUBEOP_CONFORMANCE_TOPICS")?.split(",").map((t) => t.trim()).filter((t) => t);

/** Registers every conformance case as a step of one Deno test against the target `start` returns. */
export function defineConformance(
  targetName: TargetName,
  start: () => Promise<ConformanceTarget>,
  ignore = false,
): void {
  Deno.test({
    name: `conformance[${targetName}]`,
    ignore,
    sanitizeResources: false,
    sanitizeOps: false,
    async fn(t) {
      const target = await start();
      const config = await loadKubeconfigFile(target.kubeconfigPath);
      const client = new KubeClient({ config });
      const noRetry = new KubeClient({ config, maxRetries: 0 });
      const ns = `conf-${crypto.randomUUID().slice(0, 8)}`;
      let offClient: Promise<KubeClient> | undefined;
      const shardingOff = target.shardingOff &&
        (() =>
          offClient ??= target.shardingOff!().then(async (path) =>
            new KubeClient({ config: await loadKubeconfigFile(path) })
          ));
      try {
        await client.create<KubeObject>(CoreTypes.Namespace, { metadata: { name: ns } });
        for (const { topic, cases } of TOPICS) {
          for (const c of cases) {
            await t.step({
              name: `${topic}: ${c.name}`,
              ignore: (c.only !== undefined && c.only.target !== targetName) ||
                (ONLY_TOPICS !== undefined && !ONLY_TOPICS.includes(topic)),
              fn: () => c.run({ client, noRetry, ns, target: targetName, shardingOff }),
            });
          }
        }
        if (!ONLY_TOPICS || ONLY_TOPICS.includes("authz")) await authzCases(t, client, ns); // authz: each behaviour is a step (identities need a ServiceAccount set-up)
      } finally {
        client.close();
        noRetry.close();
        if (offClient) (await offClient.catch(() => undefined))?.close();
        await target.stop();
      }
    },
  });
}
