/**
 * Conformance cases: built-in validation of workload and RBAC kinds (Deployments, StatefulSets, Jobs, CronJobs, Roles
 * and RoleBindings). Each request is one kube-apiserver v1.37 refuses; the case asserts the code, reason, message and
 * causes it answers (messages copied from a v1.37.2 control plane). Core kinds: validation_kinds.ts.
 * @module
 */
import type { ResourceType } from "../../runtime/types.ts";
import { INVALID, REQUIRED, several, single } from "./invalid_status.ts";
import type { ConformanceCase } from "./support.ts";
import { expectStatus } from "./status_assert.ts";

const rt = (group: string, plural: string, kind: string, version = "v1"): ResourceType => ({
  group,
  version,
  plural,
  kind,
  namespaced: true,
});
const Deployment = rt("apps", "deployments", "Deployment");
const Job = rt("batch", "jobs", "Job");
const CronJob = rt("batch", "cronjobs", "CronJob");
const Role = rt("rbac.authorization.k8s.io", "roles", "Role");
const RoleBinding = rt("rbac.authorization.k8s.io", "rolebindings", "RoleBinding");

/** A pod spec kube accepts. */
const POD_SPEC = { containers: [{ name: "c", image: "busybox" }] };

/** Built-in validation: apps, batch and rbac. */
export const validationWorkloadCases: ConformanceCase[] = [
  {
    name: "Deployments: a selector matching the template's labels is required and immutable",
    async run({ noRetry, ns }) {
      const deploy = (name: string, spec: Record<string, unknown>) =>
        noRetry.create(Deployment, { metadata: { name, namespace: ns }, spec }, { namespace: ns });
      const template = (labels: Record<string, string>) => ({ metadata: { labels }, spec: POD_SPEC });
      await expectStatus(
        deploy("val-dep1", { selector: { matchLabels: { app: "a" } }, template: template({ app: "b" }) }),
        single(
          "Deployment.apps",
          "val-dep1",
          INVALID,
          "spec.template.metadata.labels",
          'Invalid value: {"app":"b"}: `selector` does not match template `labels`',
        ),
        "selector mismatch",
      );
      await expectStatus(
        deploy("val-dep0", { template: template({ app: "b" }) }),
        several("Deployment.apps", "val-dep0", [
          [REQUIRED, "spec.selector", "Required value"],
          [
            INVALID,
            "spec.template.metadata.labels",
            'Invalid value: {"app":"b"}: `selector` does not match template `labels`',
          ],
        ]),
        "no selector",
      );
      await deploy("val-dep2", { selector: { matchLabels: { app: "a" } }, template: template({ app: "a", v: "1" }) });
      await expectStatus(
        noRetry.patch(Deployment, "val-dep2", { spec: { selector: { matchLabels: { app: "a", v: "1" } } } }, {
          namespace: ns,
          type: "merge",
        }),
        single(
          "Deployment.apps",
          "val-dep2",
          INVALID,
          "spec.selector",
          'Invalid value: {"matchLabels":{"app":"a","v":"1"}}: field is immutable',
        ),
        "selector change",
      );
    },
  },
  {
    name: "StatefulSets keep serviceName and podManagementPolicy; Jobs keep completionMode",
    async run({ noRetry, ns }) {
      const StatefulSet = rt("apps", "statefulsets", "StatefulSet");
      await noRetry.create(StatefulSet, {
        metadata: { name: "val-sts", namespace: ns },
        spec: {
          serviceName: "a",
          selector: { matchLabels: { a: "s" } },
          template: { metadata: { labels: { a: "s" } }, spec: POD_SPEC },
        },
      }, { namespace: ns });
      await expectStatus(
        noRetry.patch(StatefulSet, "val-sts", { spec: { serviceName: "b", podManagementPolicy: "Parallel" } }, {
          namespace: ns,
          type: "merge",
        }),
        several("StatefulSet.apps", "val-sts", [
          [INVALID, "spec.serviceName", 'Invalid value: "b": field is immutable'],
          [INVALID, "spec.podManagementPolicy", 'Invalid value: "Parallel": field is immutable'],
        ]),
        "StatefulSet immutable fields",
      );
      await expectStatus(
        noRetry.patch(StatefulSet, "val-sts", { spec: { replicas: -1 } }, { namespace: ns, type: "merge" }),
        single(
          "StatefulSet.apps",
          "val-sts",
          INVALID,
          "spec.replicas",
          "Invalid value: -1: must be greater than or equal to 0",
        ),
        "negative replicas",
      );
      await noRetry.create(Job, {
        metadata: { name: "val-job2", namespace: ns },
        spec: { template: { spec: { ...POD_SPEC, restartPolicy: "Never" } } },
      }, { namespace: ns });
      await expectStatus(
        noRetry.patch(Job, "val-job2", { spec: { completionMode: "Indexed" } }, { namespace: ns, type: "merge" }),
        single("Job.batch", "val-job2", INVALID, "spec.completionMode", 'Invalid value: "Indexed": field is immutable'),
        "Job completionMode",
      );
    },
  },
  {
    name: "Jobs need restartPolicy OnFailure or Never; CronJobs a five-field schedule without TZ",
    async run({ noRetry, ns }) {
      await expectStatus(
        noRetry.create(Job, {
          metadata: { name: "val-job", namespace: ns },
          spec: { template: { spec: { ...POD_SPEC, restartPolicy: "Always" } } },
        }, { namespace: ns }),
        single(
          "Job.batch",
          "val-job",
          REQUIRED,
          "spec.template.spec.restartPolicy",
          'Required value: valid values: "OnFailure", "Never"',
        ),
        "Job restartPolicy",
      );
      const cron = (name: string, schedule?: string) =>
        noRetry.create(CronJob, {
          metadata: { name, namespace: ns },
          spec: { schedule, jobTemplate: { spec: { template: { spec: { ...POD_SPEC, restartPolicy: "Never" } } } } },
        }, { namespace: ns });
      await expectStatus(
        cron("val-cron1", "not a schedule"),
        single(
          "CronJob.batch",
          "val-cron1",
          INVALID,
          "spec.schedule",
          'Invalid value: "not a schedule": expected exactly 5 fields, found 3: [not a schedule]',
        ),
        "bad schedule",
      );
      await expectStatus(
        cron("val-cron2", "TZ=UTC * * * * *"),
        single(
          "CronJob.batch",
          "val-cron2",
          INVALID,
          "spec.schedule",
          'Invalid value: "TZ=UTC * * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead',
        ),
        "TZ in schedule",
      );
      await expectStatus(
        cron("val-cron4", "61 * * * *"),
        single(
          "CronJob.batch",
          "val-cron4",
          INVALID,
          "spec.schedule",
          'Invalid value: "61 * * * *": end of range (61) above maximum (59): 61',
        ),
        "minute out of range",
      );
      await expectStatus(
        cron("val-cron3"),
        single("CronJob.batch", "val-cron3", REQUIRED, "spec.schedule", "Required value"),
        "no schedule",
      );
    },
  },
  {
    name: "RBAC: rules need verbs, groups and resources; bindings a valid roleRef that never changes",
    async run({ noRetry, ns }) {
      await expectStatus(
        noRetry.create(Role, {
          metadata: { name: "val-role", namespace: ns },
          rules: [{ apiGroups: [""], resources: ["pods"] }, { verbs: ["get"] }, {
            verbs: ["get"],
            nonResourceURLs: ["/x"],
          }],
        }, { namespace: ns }),
        several("Role.rbac.authorization.k8s.io", "val-role", [
          [REQUIRED, "rules[1].apiGroups", "Required value: resource rules must supply at least one api group"],
          [REQUIRED, "rules[1].resources", "Required value: resource rules must supply at least one resource"],
          [
            INVALID,
            "rules[2].nonResourceURLs",
            'Invalid value: ["/x"]: namespaced rules cannot apply to non-resource URLs',
          ],
          [REQUIRED, "rules[0].verbs", "Required value"],
        ]),
        "rules",
      );
      await expectStatus(
        noRetry.create(RoleBinding, {
          metadata: { name: "val-rb2", namespace: ns },
          roleRef: { apiGroup: "x", kind: "Pod", name: "" },
          subjects: [{ kind: "Robot", name: "" }],
        }, { namespace: ns }),
        several("RoleBinding.rbac.authorization.k8s.io", "val-rb2", [
          [
            "FieldValueNotSupported",
            "roleRef.apiGroup",
            'Unsupported value: "x": supported values: "rbac.authorization.k8s.io"',
          ],
          [
            "FieldValueNotSupported",
            "roleRef.kind",
            'Unsupported value: "Pod": supported values: "Role", "ClusterRole"',
          ],
          [
            "FieldValueNotSupported",
            "subjects[0].kind",
            'Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"',
          ],
          [REQUIRED, "subjects[0].name", "Required value"],
          [REQUIRED, "roleRef.name", "Required value"],
        ]),
        "bad binding",
      );
      await noRetry.create(RoleBinding, {
        metadata: { name: "val-rb1", namespace: ns },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "r1" },
        subjects: [{ kind: "User", name: "u", apiGroup: "rbac.authorization.k8s.io" }],
      }, { namespace: ns });
      await expectStatus(
        noRetry.patch(RoleBinding, "val-rb1", { roleRef: { name: "r2" } }, { namespace: ns, type: "merge" }),
        single(
          "RoleBinding.rbac.authorization.k8s.io",
          "val-rb1",
          INVALID,
          "roleRef",
          'Invalid value: {"APIGroup":"rbac.authorization.k8s.io","Kind":"Role","Name":"r2"}: field is immutable',
        ),
        "roleRef change",
      );
    },
  },
  {
    name: "Deployments: the rollout strategy and the counts after the template; Jobs: no negative counts",
    async run({ noRetry, ns }) {
      const template = { metadata: { labels: { app: "a" } }, spec: POD_SPEC };
      const deploy = (name: string, spec: Record<string, unknown>) =>
        noRetry.create(Deployment, {
          metadata: { name, namespace: ns },
          spec: { selector: { matchLabels: { app: "a" } }, template, ...spec },
        }, { namespace: ns, dryRun: true });
      const percent = "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or " +
        "'93%', regex used for validation is '[0-9]+%')";
      await expectStatus(
        deploy("val-roll1", {
          strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "x%", maxUnavailable: "150%" } },
          minReadySeconds: -1,
          revisionHistoryLimit: -2,
          progressDeadlineSeconds: -5,
        }),
        several("Deployment.apps", "val-roll1", [
          [INVALID, "spec.strategy.rollingUpdate.maxSurge", `Invalid value: "x%": ${percent}`],
          [
            INVALID,
            "spec.strategy.rollingUpdate.maxUnavailable",
            'Invalid value: "150%": must not be greater than 100%',
          ],
          [INVALID, "spec.minReadySeconds", "Invalid value: -1: must be greater than or equal to 0"],
          [INVALID, "spec.revisionHistoryLimit", "Invalid value: -2: must be greater than or equal to 0"],
          [INVALID, "spec.progressDeadlineSeconds", "Invalid value: -5: must be greater than or equal to 0"],
          [INVALID, "spec.progressDeadlineSeconds", "Invalid value: -5: must be greater than minReadySeconds"],
        ]),
        "bad rollout numbers",
      );
      await expectStatus(
        deploy("val-roll2", { strategy: { rollingUpdate: { maxSurge: "0%", maxUnavailable: "0%" } } }),
        single(
          "Deployment.apps",
          "val-roll2",
          INVALID,
          "spec.strategy.rollingUpdate.maxUnavailable",
          'Invalid value: "0%": may not be 0 when `maxSurge` is 0',
        ),
        "nothing may roll",
      );
      await expectStatus(
        deploy("val-roll3", { strategy: { type: "Recreate", rollingUpdate: { maxSurge: 1 } } }),
        single(
          "Deployment.apps",
          "val-roll3",
          "FieldValueForbidden",
          "spec.strategy.rollingUpdate",
          "Forbidden: may not be specified when strategy `type` is 'Recreate'",
        ),
        "Recreate with rolling parameters",
      );
      await expectStatus(
        deploy("val-roll4", { strategy: { type: "BlueGreen" } }),
        single(
          "Deployment.apps",
          "val-roll4",
          "FieldValueNotSupported",
          "spec.strategy",
          'Unsupported value: {"Type":"BlueGreen","RollingUpdate":null}: supported values: "Recreate", "RollingUpdate"',
        ),
        "an unknown strategy",
      );
      await expectStatus(
        noRetry.create(Job, {
          metadata: { name: "val-job-counts", namespace: ns },
          spec: {
            parallelism: -1,
            completions: -1,
            backoffLimit: -2,
            template: { spec: { ...POD_SPEC, restartPolicy: "Never" } },
          },
        }, { namespace: ns, dryRun: true }),
        several("Job.batch", "val-job-counts", [
          [INVALID, "spec.parallelism", "Invalid value: -1: must be greater than or equal to 0"],
          [INVALID, "spec.completions", "Invalid value: -1: must be greater than or equal to 0"],
          [INVALID, "spec.backoffLimit", "Invalid value: -2: must be greater than or equal to 0"],
        ]),
        "negative Job counts",
      );
    },
  },
];
