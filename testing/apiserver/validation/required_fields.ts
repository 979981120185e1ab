/**
 * The required fields of the built-in kinds the fake stores without a validating strategy of their own, checked as
 * kube-apiserver v1.37's `Validate<Kind>` checks them on create and update: the same causes, in the same order
 * (measured by tests/differential/ with objects that leave them out). Only absent or empty fields are checked here;
 * the values of present ones are not. {@link withRequiredFields} adds the checks to the strategies' `validate`.
 * @module
 */
import type { StatusCause } from "../../../runtime/client/errors.ts";
import { dns1123SubdomainErrors } from "../../../runtime/apimachinery/names.ts";
import type { KubeObject } from "../../../runtime/types.ts";
import type { ResourceStrategy } from "../strategy.ts";
import { fieldInvalid, fieldNotSupported, fieldRequired } from "./field_errors.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const empty = (v: unknown) =>
  v === undefined || v === null || v === "" || (Array.isArray(v) ? v.length === 0 : typeof v === "object" &&
    Object.keys(v as object).length === 0);

/** Causes for each field of `checks` that is empty: `[field, value, detail]`, detail after `Required value: `. */
function required(checks: Array<[string, unknown, string?]>): StatusCause[] {
  return checks.filter(([, v]) => empty(v)).map(([field, , detail]) => fieldRequired(field, detail));
}

function subdomain(field: string, value: string | undefined): StatusCause[] {
  return dns1123SubdomainErrors(value ?? "").map((m) => fieldInvalid(field, value ?? "", m));
}

const PV_SOURCES = [
  "gcePersistentDisk",
  "awsElasticBlockStore",
  "hostPath",
  "glusterfs",
  "nfs",
  "rbd",
  "iscsi",
  "cinder",
  "cephfs",
  "fc",
  "flocker",
  "flexVolume",
  "azureFile",
  "vsphereVolume",
  "quobyte",
  "azureDisk",
  "photonPersistentDisk",
  "portworxVolume",
  "scaleIO",
  "local",
  "storageos",
  "csi",
];

const ADMISSION = "admissionregistration.k8s.io";
const ONE_OF_VALIDATIONS = "validations or auditAnnotations must contain at least one item";

/** Required-field checks by group-resource (`group/plural`). */
export const REQUIRED_FIELDS: Record<string, (obj: Any) => StatusCause[]> = {
  "/persistentvolumes": (o) => [
    ...required([["spec.accessModes", o.spec?.accessModes], ["spec.capacity", o.spec?.capacity]]),
    ...(empty(o.spec?.capacity) ? [fieldNotSupported("spec.capacity", null, ["storage"])] : []),
    ...(PV_SOURCES.some((s) => o.spec?.[s] != null) ? [] : [fieldRequired("spec", "must specify a volume type")]),
  ],
  "/podtemplates": (o) => required([["template.spec.containers", o.template?.spec?.containers]]),
  "/replicationcontrollers": (o) =>
    required([["spec.selector", o.spec?.selector], ["spec.template", o.spec?.template]]),
  "certificates.k8s.io/certificatesigningrequests": (o) => [
    ...(empty(o.spec?.request)
      ? [fieldInvalid("spec.request", null, "PEM block type must be CERTIFICATE REQUEST")]
      : []),
    ...required([["spec.usages", o.spec?.usages], ["spec.signerName", o.spec?.signerName]]),
  ],
  "certificates.k8s.io/clustertrustbundles": (o) =>
    empty(o.spec?.trustBundle)
      ? [fieldInvalid("spec.trustBundle", "<value omitted>", "at least one trust anchor must be provided")]
      : [],
  "networking.k8s.io/ingressclasses": (o) => required([["spec.controller", o.spec?.controller]]),
  "networking.k8s.io/ipaddresses": (o) => required([["spec.parentRef", o.spec?.parentRef]]),
  "networking.k8s.io/servicecidrs": (o) => required([["spec.cidrs", o.spec?.cidrs, "at least one CIDR required"]]),
  "storage.k8s.io/csistoragecapacities": (o) => subdomain("storageClassName", o.storageClassName),
  "storage.k8s.io/storageclasses": (o) => required([["provisioner", o.provisioner]]),
  "storage.k8s.io/volumeattachments": (o) => [
    ...(o.spec?.source?.persistentVolumeName == null && o.spec?.source?.inlineVolumeSpec == null
      ? [fieldRequired("spec.source", "must specify exactly one of inlineVolumeSpec and persistentVolumeName")]
      : []),
    ...subdomain("spec.nodeName", o.spec?.nodeName),
    ...required([["spec.attacher", o.spec?.attacher]]),
  ],
  "storage.k8s.io/volumeattributesclasses": (o) =>
    required([["driverName", o.driverName], ["parameters", o.parameters, "must contain at least one key/value pair"]]),
  [`${ADMISSION}/mutatingadmissionpolicies`]: (o) =>
    required([
      ["spec.matchConstraints", o.spec?.matchConstraints],
      ["spec.mutations", o.spec?.mutations, "mutations must contain at least one item"],
      ["spec.reinvocationPolicy", o.spec?.reinvocationPolicy],
    ]),
  [`${ADMISSION}/mutatingadmissionpolicybindings`]: (o) => required([["spec.policyName", o.spec?.policyName]]),
  [`${ADMISSION}/validatingadmissionpolicies`]: (o) => [
    ...required([["spec.matchConstraints", o.spec?.matchConstraints]]),
    ...(empty(o.spec?.validations) && empty(o.spec?.auditAnnotations)
      ? [
        fieldRequired("spec.validations", ONE_OF_VALIDATIONS),
        fieldRequired("spec.auditAnnotations", ONE_OF_VALIDATIONS),
      ]
      : []),
  ],
  [`${ADMISSION}/validatingadmissionpolicybindings`]: (o) =>
    required([["spec.policyName", o.spec?.policyName], ["spec.validationActions", o.spec?.validationActions]]),
  "node.k8s.io/runtimeclasses": (o) => required([["handler", o.handler]]),
  "discovery.k8s.io/endpointslices": (o) => required([["addressType", o.addressType]]),
  "resource.k8s.io/resourceslices": (o) => [
    ...required([["spec.driver", o.spec?.driver], ["spec.pool.name", o.spec?.pool?.name]]),
    ...(!(o.spec?.pool?.resourceSliceCount > 0)
      ? [
        fieldInvalid(
          "spec.pool.resourceSliceCount",
          o.spec?.pool?.resourceSliceCount ?? 0,
          "must be greater than zero",
        ),
      ]
      : []),
    ...(["nodeName", "nodeSelector", "allNodes", "perDeviceNodeSelection"].some((k) => !empty(o.spec?.[k])) ? [] : [
      fieldRequired(
        "spec",
        "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required",
      ),
    ]),
  ],
  "flowcontrol.apiserver.k8s.io/flowschemas": (o) =>
    required([[
      "spec.priorityLevelConfiguration.name",
      o.spec?.priorityLevelConfiguration?.name,
      "must reference a priority level",
    ]]),
  "flowcontrol.apiserver.k8s.io/prioritylevelconfigurations": (o) => required([["spec.type", o.spec?.type]]),
  "storagemigration.k8s.io/storageversionmigrations": (o) =>
    required([["spec.resource.resource", o.spec?.resource?.resource, "resource is required to be set"]]),
};

/**
 * The strategy entries with {@link REQUIRED_FIELDS}' check run after each strategy's own `validate` (and, as kube
 * validates the whole object on update too, after `validateUpdate`); resources without an entry get one.
 *
 * @example
 * ```ts
 * import { withRequiredFields } from "./required_fields.ts";
 * const [[, classes]] = withRequiredFields([["node.k8s.io/runtimeclasses", {}]]);
 * const causes = classes.validate!({ metadata: { name: "x" } } as never, {} as never);
 * console.assert(causes[0].field === "handler");
 * ```
 */
export function withRequiredFields(
  entries: ReadonlyArray<[groupResource: string, strategy: ResourceStrategy]>,
): Array<[string, ResourceStrategy]> {
  const wrap = (gr: string, strategy: ResourceStrategy): ResourceStrategy => {
    const check = REQUIRED_FIELDS[gr];
    if (!check) return strategy;
    return {
      ...strategy,
      validate: (obj: KubeObject, ctx) => [...(strategy.validate?.(obj, ctx) ?? []), ...check(obj)],
      validateUpdate: (next: KubeObject, old: KubeObject, ctx) => [
        ...(strategy.validateUpdate?.(next, old, ctx) ?? []),
        ...check(next),
      ],
    };
  };
  const out: Array<[string, ResourceStrategy]> = entries.map(([gr, strategy]) => [gr, wrap(gr, strategy)]);
  const listed = new Set(entries.map(([gr]) => gr));
  for (const gr of Object.keys(REQUIRED_FIELDS)) if (!listed.has(gr)) out.push([gr, wrap(gr, {})]);
  return out;
}
