/**
 * Conformance cases: built-in validation of core kinds (ConfigMaps, Secrets, Services, Pods, Leases, Events), apps,
 * batch and rbac. Each request is one kube-apiserver v1.37 refuses; the case asserts the code, reason, message and
 * causes it answers (messages copied from a v1.37.2 control plane).
 * @module
 */
import assert from "node:assert/strict";
import { CoreTypes, type ResourceType } from "../../runtime/types.ts";
// The cases read many kinds' defaulted fields directly: the fake's loose object type (testing/unstructured.ts).
import type { Unstructured as KubeObject } from "../../testing/unstructured.ts";
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

const CONFIG_KEY = "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  " +
  "or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

/** A pod spec kube accepts. */
const POD_SPEC = { containers: [{ name: "c", image: "busybox" }] };

/** Built-in validation: core kinds, apps, batch and rbac. */
export const validationKindCases: ConformanceCase[] = [
  {
    name: "ConfigMaps: config-key names, a key in both data and binaryData, 1 MiB in total",
    async run({ noRetry, ns }) {
      const cm = (name: string, body: Record<string, unknown>) =>
        noRetry.create(CoreTypes.ConfigMap, { metadata: { name, namespace: ns }, ...body }, { namespace: ns });
      await expectStatus(
        cm("val-cmkey", { data: { "bad key": "v" } }),
        single("ConfigMap", "val-cmkey", INVALID, "data[bad key]", `Invalid value: "bad key": ${CONFIG_KEY}`),
        "bad key",
      );
      await expectStatus(
        cm("val-cmdot", { binaryData: { "..": "dg==" } }),
        single("ConfigMap", "val-cmdot", INVALID, "binaryData[..]", `Invalid value: "..": must not be '..'`),
        "dot-dot key",
      );
      await expectStatus(
        cm("val-cmdup", { data: { k: "v" }, binaryData: { k: "dg==" } }),
        single(
          "ConfigMap",
          "val-cmdup",
          INVALID,
          "data[k]",
          'Invalid value: "k": duplicate of key present in binaryData',
        ),
        "key in both",
      );
      await expectStatus(
        cm("val-cmbig", { data: { a: "x".repeat(600_000), b: "y".repeat(600_000) } }),
        single("ConfigMap", "val-cmbig", "FieldValueTooLong", "[]", "Too long: may not be more than 1048576 bytes"),
        "over 1 MiB",
      );
    },
  },
  {
    name: "Secrets: data must be base64 (400), keys and 1 MiB; typed Secrets need their keys",
    async run({ noRetry, ns }) {
      const secret = (name: string, body: Record<string, unknown>) =>
        noRetry.create(CoreTypes.Secret, { metadata: { name, namespace: ns }, ...body }, { namespace: ns });
      await expectStatus(secret("val-s64", { data: { a: "not base64!" } }), {
        code: 400,
        reason: "BadRequest",
        message: 'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 3',
      }, "not base64");
      await expectStatus(
        secret("val-skey", { data: { "bad key": "dg==" } }),
        single("Secret", "val-skey", INVALID, "data[bad key]", `Invalid value: "bad key": ${CONFIG_KEY}`),
        "bad key",
      );
      await expectStatus(
        secret("val-sbig", { stringData: { a: "x".repeat(1048577) } }),
        single("Secret", "val-sbig", "FieldValueTooLong", "data", "Too long: may not be more than 1048576 bytes"),
        "over 1 MiB",
      );
      await expectStatus(
        secret("val-stls", { type: "kubernetes.io/tls", data: {} }),
        several("Secret", "val-stls", [
          [REQUIRED, "data[tls.crt]", "Required value"],
          [REQUIRED, "data[tls.key]", "Required value"],
        ]),
        "tls",
      );
      await expectStatus(
        secret("val-sdock", { type: "kubernetes.io/dockerconfigjson", data: {} }),
        single("Secret", "val-sdock", REQUIRED, "data[.dockerconfigjson]", "Required value"),
        "dockerconfigjson",
      );
      await expectStatus(
        secret("val-sdock2", {
          type: "kubernetes.io/dockerconfigjson",
          stringData: { ".dockerconfigjson": "{not json" },
        }),
        single(
          "Secret",
          "val-sdock2",
          INVALID,
          "data[.dockerconfigjson]",
          "Invalid value: \"<secret contents redacted>\": invalid character 'n' looking for beginning of object key string",
        ),
        "dockerconfigjson not JSON",
      );
      await expectStatus(
        secret("val-sbasic", { type: "kubernetes.io/basic-auth", data: {} }),
        several("Secret", "val-sbasic", [
          [REQUIRED, "data[username]", "Required value"],
          [REQUIRED, "data[password]", "Required value"],
        ]),
        "basic-auth",
      );
      await expectStatus(
        secret("val-ssa", { type: "kubernetes.io/service-account-token", data: {} }),
        single(
          "Secret",
          "val-ssa",
          REQUIRED,
          "metadata.annotations[kubernetes.io/service-account.name]",
          "Required value",
        ),
        "service-account-token",
      );
    },
  },
  {
    name: "Services: ports required, names, ranges, protocols and duplicates",
    async run({ noRetry, ns }) {
      const svc = (name: string, spec: Record<string, unknown>) =>
        noRetry.create(CoreTypes.Service, { metadata: { name, namespace: ns }, spec }, { namespace: ns });
      await expectStatus(
        svc("val-svc1", {}),
        single("Service", "val-svc1", REQUIRED, "spec.ports", "Required value"),
        "no ports",
      );
      const range = "must be between 1 and 65535, inclusive";
      await expectStatus(
        svc("val-svc2", { ports: [{ name: "a", port: 0 }, { name: "a", port: 70000 }, { port: 80, protocol: "XTP" }] }),
        several("Service", "val-svc2", [
          [INVALID, "spec.ports[0].port", `Invalid value: 0: ${range}`],
          [INVALID, "spec.ports[0].targetPort", `Invalid value: 0: ${range}`],
          ["FieldValueDuplicate", "spec.ports[1].name", 'Duplicate value: "a"'],
          [INVALID, "spec.ports[1].port", `Invalid value: 70000: ${range}`],
          [INVALID, "spec.ports[1].targetPort", `Invalid value: 70000: ${range}`],
          [REQUIRED, "spec.ports[2].name", "Required value"],
          [
            "FieldValueNotSupported",
            "spec.ports[2].protocol",
            'Unsupported value: "XTP": supported values: "SCTP", "TCP", "UDP"',
          ],
        ]),
        "bad ports",
      );
      await expectStatus(
        svc("val-svc3", { ports: [{ name: "a", port: 80 }, { name: "b", port: 80 }] }),
        single(
          "Service",
          "val-svc3",
          "FieldValueDuplicate",
          "spec.ports[1]",
          'Duplicate value: {"Name":"","Protocol":"TCP","AppProtocol":null,"Port":80,"TargetPort":0,"NodePort":0}',
        ),
        "duplicate port",
      );
    },
  },
  {
    name: "Services: the cluster IP may not change once set",
    async run({ noRetry, ns }) {
      await noRetry.create(CoreTypes.Service, {
        metadata: { name: "val-svcip", namespace: ns },
        spec: { ports: [{ port: 80 }] },
      }, {
        namespace: ns,
      });
      await expectStatus(
        noRetry.patch(CoreTypes.Service, "val-svcip", { spec: { clusterIP: "10.0.0.99" } }, {
          namespace: ns,
          type: "merge",
        }),
        single(
          "Service",
          "val-svcip",
          INVALID,
          "spec.clusterIPs[0]",
          'Invalid value: ["10.0.0.99"]: may not change once set',
        ),
        "clusterIP change",
      );
    },
  },
  {
    name: "Pods: containers with names and images required; updates may change only images and a few fields",
    async run({ noRetry, ns }) {
      const pod = (name: string, spec: Record<string, unknown>) =>
        noRetry.create(CoreTypes.Pod, { metadata: { name, namespace: ns }, spec }, { namespace: ns });
      await expectStatus(
        pod("val-pod1", {}),
        single("Pod", "val-pod1", REQUIRED, "spec.containers", "Required value"),
        "no containers",
      );
      await expectStatus(
        pod("val-pod2", { containers: [{ name: "c" }, { name: "c", image: "x" }, { image: "y" }] }),
        several("Pod", "val-pod2", [
          [REQUIRED, "spec.containers[0].image", "Required value"],
          ["FieldValueDuplicate", "spec.containers[1].name", 'Duplicate value: "c"'],
          [REQUIRED, "spec.containers[2].name", "Required value"],
        ]),
        "container names and images",
      );
      await pod("val-pod3", POD_SPEC);
      const image = await noRetry.patch<KubeObject>(CoreTypes.Pod, "val-pod3", {
        spec: { containers: [{ name: "c", image: "busybox:2" }] },
      }, {
        namespace: ns,
        type: "strategic",
      });
      assert.equal(image.spec.containers[0].image, "busybox:2");
      const forbidden = await expectStatus(
        noRetry.patch(CoreTypes.Pod, "val-pod3", { spec: { restartPolicy: "Never" } }, {
          namespace: ns,
          type: "merge",
        }),
        {
          code: 422,
          reason: "Invalid",
          message:
            /^Pod "val-pod3" is invalid: spec: Forbidden: pod updates may not change fields other than `spec\.containers\[\*\]\.image`,`spec\.initContainers\[\*\]\.image`,`spec\.activeDeadlineSeconds`,`spec\.tolerations` \(only additions to existing tolerations\),`spec\.terminationGracePeriodSeconds` \(allow it to be set to 1 if it was previously negative\)\n/,
        },
        "restartPolicy change",
      );
      const [only] = forbidden.details?.causes ?? [];
      assert.deepEqual([only?.reason, only?.field], ["FieldValueForbidden", "spec"]);
    },
  },
  {
    name: "Leases: positive durations, non-negative transitions; MicroTime needs six fractional digits (400)",
    async run({ noRetry, ns }) {
      const lease = (name: string, spec: Record<string, unknown>) =>
        noRetry.create(CoreTypes.Lease, { metadata: { name, namespace: ns }, spec }, { namespace: ns });
      await expectStatus(
        lease("val-lease1", { leaseDurationSeconds: 0, leaseTransitions: -1 }),
        several("Lease.coordination.k8s.io", "val-lease1", [
          [INVALID, "spec.leaseDurationSeconds", "Invalid value: 0: must be greater than 0"],
          [INVALID, "spec.leaseTransitions", "Invalid value: -1: must be greater than or equal to 0"],
        ]),
        "durations",
      );
      await expectStatus(lease("val-lease2", { acquireTime: "2020-01-01T00:00:00Z" }), {
        code: 400,
        reason: "BadRequest",
        message:
          'Lease in version "v1" cannot be handled as a Lease: parsing time "2020-01-01T00:00:00Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"',
      }, "MicroTime without microseconds");
      const ok = await lease("val-lease3", { acquireTime: "2020-01-01T00:00:00.123456Z" });
      assert.equal(ok.spec.acquireTime, "2020-01-01T00:00:00.123456Z");
    },
  },
  {
    name: "Events: the involved object's namespace must match; events.k8s.io/v1 needs eventTime and a type",
    async run({ noRetry, ns }) {
      await expectStatus(
        noRetry.create(CoreTypes.CoreEvent, {
          metadata: { name: "val-ev1", namespace: ns },
          involvedObject: { kind: "Pod", name: "p", namespace: "other" },
          reason: "R",
          message: "m",
        }, { namespace: ns }),
        single(
          "Event",
          "val-ev1",
          INVALID,
          "involvedObject.namespace",
          'Invalid value: "other": does not match event.namespace',
        ),
        "core Event in another namespace",
      );
      await expectStatus(
        noRetry.create(CoreTypes.Event, { metadata: { name: "val-ev2", namespace: ns } }, { namespace: ns }),
        several("Event", "val-ev2", [
          [INVALID, "involvedObject.namespace", 'Invalid value: "": does not match event.namespace'],
          [REQUIRED, "eventTime", "Required value"],
          [INVALID, "type", 'Invalid value: "": has invalid value: '],
        ]),
        "empty events.k8s.io Event",
      );
    },
  },
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
];
