/**
 * Row functions of kube-apiserver v1.37's table printers for the cluster-level kinds the fake serves without a
 * hand-written printer in table_builtin.ts (networking, RBAC bindings, storage, admission, scheduling, node, discovery,
 * resource, flowcontrol, certificates, apiregistration, storagemigration), after
 * `pkg/printers/internalversion/printers.go`. Their columns are recorded in testdata/real/table_columns.json.
 * @module
 */

import { humanDuration } from "../../runtime/apimachinery/durations.ts";
import { ageCell, formatLabels, formatLabelSelector, listWithMore, type RowCells, since } from "./table_cells.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

/** `formatHosts`: at most three rule hosts, `*` when none. */
function ingressHosts(rules: Any[] | undefined): string {
  const all = rules ?? [];
  const list = all.slice(0, 3).map((r) => r.host ?? "").filter((h) => h !== "");
  if (list.length === 0) return "*";
  return all.length > 3 ? `${list.join(",")} + ${all.length - 3} more...` : list.join(",");
}

/** A load balancer status's IPs and hostnames, joined by commas. */
function ingressAddress(ing: Any): string {
  return (ing.status?.loadBalancer?.ingress ?? []).map((i: Any) => i.ip || i.hostname).filter(Boolean).join(",");
}

/** `rbac.SubjectsStrings`: users, groups and service accounts (`ns/name`) of a binding, each joined by `, `. */
function subjects(binding: Any): [string, string, string] {
  const of = (kind: string, f: (s: Any) => string) =>
    (binding.subjects ?? []).filter((s: Any) => s.kind === kind).map(f).join(", ");
  return [
    of("User", (s) => s.name),
    of("Group", (s) => s.name),
    of("ServiceAccount", (s) => `${s.namespace ?? ""}/${s.name}`),
  ];
}

function bindingRow(b: Any, now: number): unknown[] {
  return [b.metadata.name, `${b.roleRef?.kind ?? ""}/${b.roleRef?.name ?? ""}`, ageCell(b, now), ...subjects(b)];
}

function paramKind(policy: Any): string {
  const pk = policy.spec?.paramKind;
  return pk ? `${pk.apiVersion ?? ""}/${pk.kind ?? ""}` : "<unset>";
}

function paramRef(binding: Any): string {
  const ref = binding.spec?.paramRef;
  if (!ref) return "<unset>";
  if (ref.name) return ref.namespace ? `${ref.namespace}/${ref.name}` : ref.name;
  return formatLabelSelector(ref.selector);
}

function policyBindingRow(b: Any, now: number): unknown[] {
  return [b.metadata.name, b.spec?.policyName ?? "", paramRef(b), ageCell(b, now)];
}

const count = (list: unknown[] | undefined) => (list ?? []).length;

function csrCondition(csr: Any): string {
  const types = new Set((csr.status?.conditions ?? []).map((c: Any) => c.type));
  let status = types.has("Denied") ? "Denied" : types.has("Approved") ? "Approved" : "Pending";
  if (types.has("Failed")) status += ",Failed";
  if (csr.status?.certificate) status += ",Issued";
  return status;
}

function apiServiceAvailable(svc: Any): string {
  const c = (svc.status?.conditions ?? []).find((x: Any) => x.type === "Available");
  if (!c) return "Unknown";
  return c.status !== "True" && c.reason ? `${c.status} (${c.reason})` : c.status;
}

function resourceClaimState(claim: Any): string {
  const states: string[] = [];
  const deleting = !!claim.metadata.deletionTimestamp;
  if (deleting) states.push("deleted");
  if (!claim.status?.allocation) {
    if (!deleting) states.push("pending");
  } else {
    states.push("allocated");
    if (count(claim.status?.reservedFor) > 0) states.push("reserved");
    else if (deleting || count(claim.metadata.finalizers) > 0) states.push("deallocating");
  }
  return states.join(",");
}

function ipAddressParent(ip: Any): string {
  const ref = ip.spec?.parentRef;
  if (!ref) return "<none>";
  let name = (ref.group ? `${ref.resource}.${ref.group}` : ref.resource ?? "").toLowerCase();
  if (ref.namespace) name += `/${ref.namespace}`;
  return `${name}/${ref.name}`;
}

function priorityLevelCells(pl: Any): unknown[] {
  const limited = pl.spec?.limited;
  const queuing = limited?.limitResponse?.queuing;
  return [
    limited ? limited.nominalConcurrencyShares ?? 0 : "<none>",
    queuing ? queuing.queues ?? 0 : "<none>",
    queuing ? queuing.handSize ?? 0 : "<none>",
    queuing ? queuing.queueLengthLimit ?? 0 : "<none>",
  ];
}

function flowSchemaDangling(fs: Any): string {
  const c = (fs.status?.conditions ?? []).find((x: Any) => x.type === "Dangling");
  return c ? c.status : "?";
}

function migrationStatus(m: Any): string {
  const conditions: Any[] = m.status?.conditions ?? [];
  for (const type of ["Succeeded", "Failed", "Running"]) {
    if (conditions.some((c) => c.type === type && c.status === "True")) return type;
  }
  return "Unknown";
}

/** A PodCertificateRequest's state: its last true Issued, Denied or Failed condition, else Pending. */
function podCertificateState(r: Any): string {
  let state = "Pending";
  for (const c of r.status?.conditions ?? []) {
    if (c.status === "True" && ["Issued", "Denied", "Failed"].includes(c.type)) state = c.type;
  }
  return state;
}

/** Row functions by printer (`group/Kind`). */
export const CLUSTER_ROWS: Record<string, RowCells> = {
  "apiregistration.k8s.io/APIService": (s, now) => [
    s.metadata.name,
    s.spec?.service ? `${s.spec.service.namespace}/${s.spec.service.name}` : "Local",
    apiServiceAvailable(s),
    ageCell(s, now),
  ],
  "certificates.k8s.io/CertificateSigningRequest": (csr, now) => [
    csr.metadata.name,
    ageCell(csr, now),
    csr.spec?.signerName ?? "",
    csr.spec?.username ?? "",
    csr.spec?.expirationSeconds != null ? humanDuration(csr.spec.expirationSeconds * 1000) : "<none>",
    csrCondition(csr),
  ],
  "certificates.k8s.io/ClusterTrustBundle": (b) => [b.metadata.name, b.spec?.signerName || "<none>"],
  "certificates.k8s.io/PodCertificateRequest": (r) => [
    r.metadata.name,
    r.spec?.podName ?? "",
    r.spec?.serviceAccountName ?? "",
    r.spec?.nodeName ?? "",
    r.spec?.signerName ?? "",
    podCertificateState(r),
    formatLabels(r.spec?.unverifiedUserAnnotations),
  ],
  "networking.k8s.io/IngressClass": (c, now) => {
    const p = c.spec?.parameters;
    const params = p ? `${p.kind}${p.apiGroup ? `.${p.apiGroup}` : ""}/${p.name}` : "<none>";
    return [c.metadata.name, c.spec?.controller ?? "", params, ageCell(c, now)];
  },
  "networking.k8s.io/Ingress": (ing, now) => [
    ing.metadata.name,
    ing.spec?.ingressClassName ?? "<none>",
    ingressHosts(ing.spec?.rules),
    ingressAddress(ing),
    count(ing.spec?.tls) > 0 ? "80, 443" : "80",
    ageCell(ing, now),
  ],
  "networking.k8s.io/IPAddress": (ip, now) => [ip.metadata.name, ipAddressParent(ip), ageCell(ip, now)],
  "networking.k8s.io/NetworkPolicy": (np, now) => [
    np.metadata.name,
    formatLabelSelector(np.spec?.podSelector),
    ageCell(np, now),
  ],
  "networking.k8s.io/ServiceCIDR": (c, now) => [c.metadata.name, (c.spec?.cidrs ?? []).join(","), ageCell(c, now)],
  "rbac.authorization.k8s.io/ClusterRoleBinding": bindingRow,
  "rbac.authorization.k8s.io/RoleBinding": bindingRow,
  "storage.k8s.io/CSIDriver": (d, now) => [
    d.metadata.name,
    d.spec?.attachRequired ?? true,
    d.spec?.podInfoOnMount ?? false,
    d.spec?.storageCapacity ?? false,
    count(d.spec?.tokenRequests) > 0 ? d.spec.tokenRequests.map((t: Any) => t.audience).join(",") : "<unset>",
    d.spec?.requiresRepublish ?? false,
    (d.spec?.volumeLifecycleModes ?? []).join(",") || "<none>",
    ageCell(d, now),
  ],
  "storage.k8s.io/CSINode": (n, now) => [n.metadata.name, count(n.spec?.drivers), ageCell(n, now)],
  "storage.k8s.io/StorageClass": (sc, now) => [
    sc.metadata.name,
    sc.provisioner ?? "",
    sc.reclaimPolicy ?? "Delete",
    sc.volumeBindingMode ?? "Immediate",
    sc.allowVolumeExpansion ?? false,
    ageCell(sc, now),
  ],
  "storage.k8s.io/VolumeAttachment": (va, now) => [
    va.metadata.name,
    va.spec?.attacher ?? "",
    va.spec?.source?.persistentVolumeName ?? "",
    va.spec?.nodeName ?? "",
    va.status?.attached ?? false,
    ageCell(va, now),
  ],
  "storage.k8s.io/VolumeAttributesClass": (c, now) => [c.metadata.name, c.driverName ?? "", ageCell(c, now)],
  "admissionregistration.k8s.io/MutatingAdmissionPolicy": (p, now) => [
    p.metadata.name,
    count(p.spec?.mutations),
    paramKind(p),
    ageCell(p, now),
  ],
  "admissionregistration.k8s.io/ValidatingAdmissionPolicy": (p, now) => [
    p.metadata.name,
    count(p.spec?.validations),
    paramKind(p),
    ageCell(p, now),
  ],
  "admissionregistration.k8s.io/MutatingAdmissionPolicyBinding": policyBindingRow,
  "admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding": policyBindingRow,
  "admissionregistration.k8s.io/MutatingWebhookConfiguration": (c, now) => [
    c.metadata.name,
    count(c.webhooks),
    ageCell(c, now),
  ],
  "admissionregistration.k8s.io/ValidatingWebhookConfiguration": (c, now) => [
    c.metadata.name,
    count(c.webhooks),
    ageCell(c, now),
  ],
  "scheduling.k8s.io/PriorityClass": (pc, now) => [
    pc.metadata.name,
    pc.value ?? 0,
    pc.globalDefault ?? false,
    ageCell(pc, now),
    pc.preemptionPolicy ?? "<unset>",
  ],
  "node.k8s.io/RuntimeClass": (rc, now) => [rc.metadata.name, rc.handler ?? "", ageCell(rc, now)],
  "discovery.k8s.io/EndpointSlice": (s, now) => [
    s.metadata.name,
    s.addressType ?? "",
    listWithMore((s.ports ?? []).map((p: Any) => p.port != null ? String(p.port) : p.name ?? "*")),
    listWithMore((s.endpoints ?? []).flatMap((e: Any) => e.addresses ?? [])),
    ageCell(s, now),
  ],
  "resource.k8s.io/DeviceClass": (c, now) => [c.metadata.name, ageCell(c, now)],
  "resource.k8s.io/DeviceTaintRule": (r, now) => {
    const taint = r.spec?.taint ?? {};
    return [
      r.metadata.name,
      taint.key ?? "",
      taint.value ?? "",
      taint.effect ?? "",
      since(taint.timeAdded, now),
      ageCell(r, now),
    ];
  },
  "resource.k8s.io/ResourceClaim": (c, now) => [c.metadata.name, resourceClaimState(c), ageCell(c, now)],
  "resource.k8s.io/ResourceClaimTemplate": (t, now) => [t.metadata.name, ageCell(t, now)],
  "resource.k8s.io/ResourceSlice": (s, now) => [
    s.metadata.name,
    s.spec?.nodeName ?? "",
    s.spec?.driver ?? "",
    s.spec?.pool?.name ?? "",
    ageCell(s, now),
  ],
  "flowcontrol.apiserver.k8s.io/FlowSchema": (fs, now) => [
    fs.metadata.name,
    fs.spec?.priorityLevelConfiguration?.name ?? "",
    fs.spec?.matchingPrecedence ?? 0,
    fs.spec?.distinguisherMethod?.type ?? "<none>",
    ageCell(fs, now),
    flowSchemaDangling(fs),
  ],
  "flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration": (pl, now) => [
    pl.metadata.name,
    pl.spec?.type ?? "",
    ...priorityLevelCells(pl),
    ageCell(pl, now),
  ],
  "storagemigration.k8s.io/StorageVersionMigration": (m) => [
    m.metadata.name,
    m.spec?.resource?.resource ?? "",
    migrationStatus(m),
  ],
};
