/**
 * Conformance case: the rules of StatefulSets, DaemonSets, ReplicaSets, CronJobs (time zones too), Jobs' completion
 * modes and Services' types and external names, beyond selector and template
 * (pkg/apis/apps and batch validation; found by comparing bodies against v1.37.2: the fake stored each one kube
 * refuses) — pod management and update strategies, claim retention, counts, concurrency policy, history limits, each in
 * kube's order around the shared selector and template rules.
 * @module
 */
import { sendBody } from "./support.ts";
import type { ConformanceCase } from "./support.ts";
import { assertCauses } from "./status_assert.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const template = { metadata: { labels: { a: "b" } }, spec: { containers: [{ name: "c", image: "busybox" }] } };
const selector = { matchLabels: { a: "b" } };
const NON_NEGATIVE = "must be greater than or equal to 0";

/** Invalid bodies and kube's causes for them (v1.37.2's answers): [collection, kind, spec, causes]. */
const INVALID: Array<[plural: string, kind: string, spec: Any, causes: string[]]> = [
  ["apps/v1/statefulsets", "StatefulSet", {
    replicas: -1,
    serviceName: "x",
    podManagementPolicy: "Random",
    selector,
    template,
    updateStrategy: { type: "Sometimes" },
    minReadySeconds: -1,
  }, [
    "spec.podManagementPolicy: Invalid value: \"Random\": must be 'OrderedReady' or 'Parallel'",
    'spec.updateStrategy: Invalid value: {"Type":"Sometimes","RollingUpdate":null}: must be \'RollingUpdate\' or ' +
    "'OnDelete'",
    `spec.replicas: Invalid value: -1: ${NON_NEGATIVE}`,
    `spec.minReadySeconds: Invalid value: -1: ${NON_NEGATIVE}`,
  ]],
  ["apps/v1/statefulsets", "StatefulSet", {
    serviceName: "x",
    selector,
    template,
    updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: -1, maxUnavailable: 0 } },
    persistentVolumeClaimRetentionPolicy: { whenDeleted: "Keep" },
  }, [
    `spec.updateStrategy.rollingUpdate.partition: Invalid value: -1: ${NON_NEGATIVE}`,
    "spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: 0: cannot be 0",
    'spec.persistentVolumeClaimRetentionPolicy.whenDeleted: Unsupported value: "Keep": supported values: "Retain", ' +
    '"Delete"',
  ]],
  ["apps/v1/daemonsets", "DaemonSet", {
    selector,
    template,
    updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0, maxSurge: 0 } },
    minReadySeconds: -1,
    revisionHistoryLimit: -2,
  }, [
    `spec.minReadySeconds: Invalid value: -1: ${NON_NEGATIVE}`,
    "spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0",
    `spec.revisionHistoryLimit: Invalid value: -2: ${NON_NEGATIVE}`,
  ]],
  ["apps/v1/daemonsets", "DaemonSet", { selector, template, updateStrategy: { type: "Whenever" } }, [
    'spec.updateStrategy: Unsupported value: {"Type":"Whenever","RollingUpdate":null}: supported values: ' +
    '"RollingUpdate", "OnDelete"',
  ]],
  ["apps/v1/replicasets", "ReplicaSet", { replicas: -1, minReadySeconds: -1, selector, template }, [
    `spec.replicas: Invalid value: -1: ${NON_NEGATIVE}`,
    `spec.minReadySeconds: Invalid value: -1: ${NON_NEGATIVE}`,
  ]],
  ["batch/v1/cronjobs", "CronJob", {
    schedule: "* * * * *",
    concurrencyPolicy: "Sometimes",
    startingDeadlineSeconds: -1,
    successfulJobsHistoryLimit: -1,
    failedJobsHistoryLimit: -2,
    jobTemplate: { spec: { template: { spec: { ...template.spec, restartPolicy: "Never" } } } },
  }, [
    `spec.startingDeadlineSeconds: Invalid value: -1: ${NON_NEGATIVE}`,
    'spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"',
    `spec.successfulJobsHistoryLimit: Invalid value: -1: ${NON_NEGATIVE}`,
    `spec.failedJobsHistoryLimit: Invalid value: -2: ${NON_NEGATIVE}`,
  ]],
  ["batch/v1/cronjobs", "CronJob", {
    schedule: "* * * * *",
    timeZone: "Mars/Base",
    jobTemplate: { spec: { template: { spec: { ...template.spec, restartPolicy: "Never" } } } },
  }, ['spec.timeZone: Invalid value: "Mars/Base": unknown time zone Mars/Base']],
  ["batch/v1/jobs", "Job", {
    completionMode: "Sometimes",
    template: { spec: { ...template.spec, restartPolicy: "Never" } },
  }, ['spec.completionMode: Unsupported value: "Sometimes": supported values: "NonIndexed", "Indexed"']],
  ["batch/v1/jobs", "Job", {
    completionMode: "Indexed",
    parallelism: 200000,
    template: { spec: { ...template.spec, restartPolicy: "Never" } },
  }, [
    "spec.completions: Required value: when completion mode is Indexed",
    "spec.parallelism: Invalid value: 200000: must be less than or equal to 100000 when completion mode is Indexed",
  ]],
  ["v1/services", "Service", { type: "Bogus", ports: [{ port: 80 }] }, [
    'spec.type: Unsupported value: "Bogus": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
  ]],
  ["v1/services", "Service", { type: "ExternalName", externalName: "Bad_Name!" }, [
    'spec.externalName: Invalid value: "Bad_Name!": a lowercase RFC 1123 subdomain must consist of lower case ' +
    "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', " +
    "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
  ]],
];

export const workloadRuleCases: ConformanceCase[] = [
  {
    name: "StatefulSets, DaemonSets, ReplicaSets, CronJobs, Jobs and Services: strategies, policies, modes, counts",
    async run({ noRetry, ns }) {
      for (const [i, [plural, kind, spec, causes]] of INVALID.entries()) {
        const parts = plural.split("/");
        const [version, resource] = parts.slice(-2);
        const path = parts.length === 3
          ? `/apis/${parts[0]}/${version}/namespaces/${ns}/${resource}`
          : `/api/${version}/namespaces/${ns}/${resource}`;
        const res = await sendBody(
          noRetry,
          "POST",
          path,
          { metadata: { name: `wl-rules-${i}` }, spec },
          "application/json",
          {
            dryRun: "All",
          },
        );
        assertCauses(res, causes, `${kind} ${i}`);
      }
    },
  },
];
