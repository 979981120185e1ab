/**
 * Conformance cases: per-kind validation kube-apiserver v1.37 answers that the generic rules do not cover (found by
 * the differential battery, tests/differential/) — a kind's own name rule (none for a PodDisruptionBudget, an IP
 * address for an IPAddress, whose generateName is not extended, a DNS-1123 label for a StatefulSet), the Service names
 * a StatefulSet and an Ingress refer to, a DeviceTaintRule's taint, and the causes of a DaemonSet and a CronJob sent
 * without spec (no nil-selector cause; a missing schedule, checked declaratively, last); a PriorityClass's value ceiling,
 * reserved `system-` names and preemption policy, a StorageClass's provisioner, reclaim policy and binding mode, a
 * PodDisruptionBudget's budget and selector, a PersistentVolumeClaim's modes, request, class and volume mode.
 * @module
 */
import assert from "node:assert/strict";
import type { KubeClient } from "../../runtime/client/client.ts";
import type { ConformanceCase } from "./support.ts";
import { cause, causeTexts, rawJson } from "./status_assert.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const LABEL_RULE = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must " +
  "start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is " +
  "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const IP_RULE = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";
const template = { metadata: { labels: { app: "kv" } }, spec: { containers: [{ name: "c", image: "busybox:1.36" }] } };

/** POSTs `body`, answering the code and the JSON (object or Status). */
async function post(client: KubeClient, path: string, body: Any): Promise<{ code: number; body: Any }> {
  return await rawJson(client, "POST", path, { body });
}

/** The causes of a 422 answer, as `[reason, field, message]`-keyed causes. */
function causesOf(answer: { code: number; body: Any }): Any[] {
  assert.equal(answer.code, 422, JSON.stringify(answer.body));
  return answer.body.details.causes;
}

export const kindValidationCases: ConformanceCase[] = [
  {
    name: "a PodDisruptionBudget may have any path-segment name: Bad_Name is stored",
    async run({ noRetry, ns }) {
      const path = `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets`;
      const created = await post(noRetry, path, {
        metadata: { name: "Bad_Name" },
        spec: { minAvailable: 1, selector: { matchLabels: { app: "kv" } } },
      });
      assert.equal(created.code, 201, JSON.stringify(created.body));
      await rawJson(noRetry, "DELETE", `${path}/Bad_Name`);
    },
  },
  {
    name: "an IPAddress's name must be an IP address, and its generateName is taken as the name as it is",
    async run({ noRetry, ns }) {
      const path = "/apis/networking.k8s.io/v1/ipaddresses";
      const spec = { parentRef: { resource: "services", namespace: ns, name: "svc" } };
      const bad = await post(noRetry, path, { metadata: { name: "Bad_Name" }, spec });
      assert.deepEqual(causesOf(bad), [
        cause("FieldValueInvalid", "metadata.name", `Invalid value: "Bad_Name": ${IP_RULE}`),
      ]);
      assert.equal(
        bad.body.message,
        `IPAddress.networking.k8s.io "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": ${IP_RULE}`,
      );
      const generated = await post(noRetry, path, { metadata: { generateName: "x" }, spec });
      assert.equal(generated.body.details.name, "x");
      assert.deepEqual(causesOf(generated), [
        cause("FieldValueInvalid", "metadata.generateName", `Invalid value: "x": ${IP_RULE}`),
        cause("FieldValueInvalid", "metadata.name", `Invalid value: "x": ${IP_RULE}`),
      ]);
    },
  },
  {
    name: "a StatefulSet's name and spec.serviceName must be DNS-1123 labels",
    async run({ noRetry, ns }) {
      const answer = await post(noRetry, `/apis/apps/v1/namespaces/${ns}/statefulsets`, {
        metadata: { name: "Bad_Name" },
        spec: { serviceName: "Bad_Name", selector: { matchLabels: { app: "kv" } }, template },
      });
      assert.deepEqual(causesOf(answer), [
        cause("FieldValueInvalid", "metadata.name", `Invalid value: "Bad_Name": ${LABEL_RULE}`),
        cause("FieldValueInvalid", "spec.serviceName", `Invalid value: "Bad_Name": ${LABEL_RULE}`),
      ]);
    },
  },
  {
    name: "an Ingress's backends must name their Services with DNS-1123 labels",
    async run({ noRetry, ns }) {
      const backend = (name: string) => ({ service: { name, port: { number: 80 } } });
      const answer = await post(noRetry, `/apis/networking.k8s.io/v1/namespaces/${ns}/ingresses`, {
        metadata: { name: "kv-ingress" },
        spec: {
          defaultBackend: backend("Bad_Name"),
          rules: [{ http: { paths: [{ path: "/", pathType: "Prefix", backend: backend("Also_Bad") }] } }],
        },
      });
      assert.deepEqual(causesOf(answer), [
        cause("FieldValueInvalid", "spec.defaultBackend.service.name", `Invalid value: "Bad_Name": ${LABEL_RULE}`),
        cause(
          "FieldValueInvalid",
          "spec.rules[0].http.paths[0].backend.service.name",
          `Invalid value: "Also_Bad": ${LABEL_RULE}`,
        ),
      ]);
    },
  },
  {
    name: "a DeviceTaintRule's taint needs a qualified-name key and a known effect",
    async run({ noRetry }) {
      const path = "/apis/resource.k8s.io/v1/devicetaintrules";
      const empty = await post(noRetry, path, { metadata: { name: "kv-taint" } });
      assert.deepEqual(causesOf(empty), [
        cause("FieldValueInvalid", "spec.taint.key", 'Invalid value: "": name part must be non-empty'),
        cause(
          "FieldValueInvalid",
          "spec.taint.key",
          "Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start " +
            "and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for " +
            "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        ),
        cause("FieldValueRequired", "spec.taint.effect", "Required value"),
      ]);
      const unknown = await post(noRetry, path, {
        metadata: { name: "kv-taint" },
        spec: { taint: { key: "example.com/kv", effect: "Sometimes" } },
      });
      assert.deepEqual(causesOf(unknown), [
        cause(
          "FieldValueNotSupported",
          "spec.taint.effect",
          'Unsupported value: "Sometimes": supported values: "NoExecute", "NoSchedule", "None"',
        ),
      ]);
    },
  },
  {
    name: "a DaemonSet without spec: no 'selector required', the template's labels mismatch; a CronJob's schedule last",
    async run({ noRetry, ns }) {
      const ds = await post(noRetry, `/apis/apps/v1/namespaces/${ns}/daemonsets`, { metadata: { name: "kv-ds" } });
      assert.deepEqual(causesOf(ds), [
        cause(
          "FieldValueInvalid",
          "spec.template.metadata.labels",
          "Invalid value: null: `selector` does not match template `labels`",
        ),
        cause("FieldValueRequired", "spec.template.spec.containers", "Required value"),
      ]);
      const cj = await post(noRetry, `/apis/batch/v1/namespaces/${ns}/cronjobs`, { metadata: { name: "kv-cj" } });
      assert.deepEqual(causesOf(cj), [
        cause("FieldValueRequired", "spec.jobTemplate.spec.template.spec.containers", "Required value"),
        cause(
          "FieldValueRequired",
          "spec.jobTemplate.spec.template.spec.restartPolicy",
          'Required value: valid values: "OnFailure", "Never"',
        ),
        cause("FieldValueRequired", "spec.schedule", "Required value"),
      ]);
    },
  },
  {
    name: "PriorityClasses and StorageClasses: value ceiling, system names, policies; provisioner, reclaim and binding",
    async run({ noRetry }) {
      const pcs = "/apis/scheduling.k8s.io/v1/priorityclasses";
      const dry = { dryRun: "All" };
      const pc = (name: string, value: number, more: Any = {}) =>
        rawJson(noRetry, "POST", pcs, { body: { metadata: { name }, value, ...more }, query: dry });
      assert.deepEqual(causesOf(await pc("kv-pc-high", 2_000_000_000, { preemptionPolicy: "Sometimes" })), [
        cause(
          "FieldValueForbidden",
          "value",
          "Forbidden: maximum allowed value of a user defined priority is 1000000000",
        ),
        cause(
          "FieldValueNotSupported",
          "preemptionPolicy",
          'Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"',
        ),
      ]);
      const reserved =
        "Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: ";
      assert.deepEqual(causesOf(await pc("system-kv", 5)), [
        cause("FieldValueForbidden", "metadata.name", `${reserved}system-kv is not a known system priority class`),
      ]);
      assert.deepEqual(causesOf(await pc("system-node-critical", 5)), [
        cause(
          "FieldValueForbidden",
          "metadata.name",
          `${reserved}value of system-node-critical PriorityClass must be 2000001000`,
        ),
      ]);
      const scs = "/apis/storage.k8s.io/v1/storageclasses";
      const sc = (name: string, more: Any) =>
        rawJson(noRetry, "POST", scs, { body: { metadata: { name }, ...more }, query: dry });
      const qualified = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end " +
        "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is " +
        "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
      assert.deepEqual(
        causesOf(
          await sc("kv-sc", { provisioner: "Bad Provisioner!", reclaimPolicy: "Keep", volumeBindingMode: "Later" }),
        ),
        [
          cause("FieldValueInvalid", "provisioner", `Invalid value: "bad provisioner!": ${qualified}`),
          cause(
            "FieldValueNotSupported",
            "reclaimPolicy",
            'Unsupported value: "Keep": supported values: "Delete", "Retain"',
          ),
          cause(
            "FieldValueNotSupported",
            "volumeBindingMode",
            'Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"',
          ),
        ],
      );
      assert.deepEqual(causesOf(await sc("kv-sc-empty", { provisioner: "", volumeBindingMode: "Later" })), [
        cause(
          "FieldValueNotSupported",
          "volumeBindingMode",
          'Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"',
        ),
        cause("FieldValueRequired", "provisioner", "Required value"),
      ]);
    },
  },
  {
    name: "PodDisruptionBudgets: one of minAvailable and maxUnavailable, counts or percentages to 100 %, the selector",
    async run({ noRetry, ns }) {
      const pdbs = `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets`;
      const pdb = (name: string, spec: Any) =>
        rawJson(noRetry, "POST", pdbs, { body: { metadata: { name }, spec }, query: { dryRun: "All" } });
      const text = (answer: { code: number; body: Any }) => causeTexts({ details: { causes: causesOf(answer) } });
      assert.deepEqual(text(await pdb("kv-pdb-both", { minAvailable: "50%", maxUnavailable: -1 })), [
        'spec: Invalid value: {"MinAvailable":"50%","Selector":null,"MaxUnavailable":-1,"UnhealthyPodEvictionPolicy":null}: ' +
        "minAvailable and maxUnavailable cannot be both set",
        "spec.maxUnavailable: Invalid value: -1: must be greater than or equal to 0",
      ]);
      const percent = "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or " +
        "'93%', regex used for validation is '[0-9]+%')";
      const name =
        "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an " +
        "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is " +
        "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
      const value =
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and " +
        "must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used " +
        "for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
      const selector = {
        matchExpressions: [
          { key: "Bad Key", operator: "In" },
          { key: "a", operator: "Exists", values: ["b"] },
          { key: "b", operator: "Near", values: ["-x-"] },
        ],
      };
      assert.deepEqual(
        text(await pdb("kv-pdb-bad", { maxUnavailable: "x", selector, unhealthyPodEvictionPolicy: "Sometimes" })),
        [
          `spec.maxUnavailable: Invalid value: "x": ${percent}`,
          "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
          `spec.selector.matchExpressions[0].key: Invalid value: "Bad Key": ${name}`,
          "spec.selector.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or " +
          "'DoesNotExist'",
          'spec.selector.matchExpressions[2].operator: Invalid value: "Near": not a valid selector operator',
          `spec.selector.matchExpressions[2].values[0]: Invalid value: "-x-": ${value}`,
          'spec.unhealthyPodEvictionPolicy: Unsupported value: "Sometimes": supported values: "AlwaysAllow", ' +
          '"IfHealthyBudget"',
        ],
      );
      assert.deepEqual(text(await pdb("kv-pdb-150", { minAvailable: "150%" })), [
        'spec.minAvailable: Invalid value: "150%": must not be greater than 100%',
      ]);
      const ok = await pdb("kv-pdb-ok", { minAvailable: "100%", selector: { matchLabels: { app: "x" } } });
      assert.equal(ok.code, 201, JSON.stringify(ok.body));
    },
  },
  {
    name: "PersistentVolumeClaims: access modes, a positive storage request, class name, volume mode, selector",
    async run({ noRetry, ns }) {
      const claims = `/api/v1/namespaces/${ns}/persistentvolumeclaims`;
      const claim = (name: string, spec: Any) =>
        rawJson(noRetry, "POST", claims, { body: { metadata: { name }, spec }, query: { dryRun: "All" } });
      const text = (answer: { code: number; body: Any }) => causeTexts({ details: { causes: causesOf(answer) } });
      assert.deepEqual(
        text(
          await claim("kv-pvc-modes", {
            accessModes: ["ReadWriteSometimes"],
            resources: { requests: { storage: "-1Gi" } },
          }),
        ),
        [
          'spec.accessModes: Unsupported value: "ReadWriteSometimes": supported values: "ReadOnlyMany", "ReadWriteMany", ' +
          '"ReadWriteOnce", "ReadWriteOncePod"',
          'spec.resources[storage]: Invalid value: "-1Gi": must be greater than zero',
        ],
      );
      const subdomain = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or " +
        "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation " +
        "is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
      assert.deepEqual(
        text(
          await claim("kv-pvc-rwop", {
            accessModes: ["ReadWriteOncePod", "ReadOnlyMany"],
            resources: { requests: { storage: "0" } },
            storageClassName: "Bad_Class",
            volumeMode: "Raw",
          }),
        ),
        [
          "spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes",
          'spec.resources[storage]: Invalid value: "0": must be greater than zero',
          `spec.storageClassName: Invalid value: "Bad_Class": ${subdomain}`,
          'spec.volumeMode: Unsupported value: "Raw": supported values: "Block", "Filesystem"',
        ],
      );
      const ok = await claim("kv-pvc-ok", {
        accessModes: ["ReadWriteOnce"],
        resources: { requests: { storage: "1.5Gi" } },
      });
      assert.equal(ok.code, 201, JSON.stringify(ok.body));
      assert.equal(ok.body.spec.resources.requests.storage, "1536Mi");
    },
  },
];
