/**
 * Row functions of kube-apiserver v1.37's table printers for the core, apps, batch, autoscaling and policy kinds the
 * fake serves without a hand-written printer in table_builtin.ts (PVs and claims, pod templates, replication
 * controllers, quotas, ReplicaSets, DaemonSets, StatefulSets, ControllerRevisions, Jobs, CronJobs, HPAs, PDBs), after
 * `pkg/printers/internalversion/printers.go`. Their columns are recorded in testdata/real/table_columns.json.
 * @module
 */

import { humanDuration } from "../../runtime/apimachinery/durations.ts";
import { compareStrings } from "../../runtime/apimachinery/string_order.ts";
import {
  ageCell,
  containersAndImages,
  formatLabels,
  formatLabelSelector,
  type RowCells,
  since,
} from "./table_cells.ts";
import { hpaV1ToV2 } from "./strategies/hpa_v1_conversion.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const ACCESS_MODES: Record<string, string> = {
  ReadWriteOnce: "RWO",
  ReadOnlyMany: "ROX",
  ReadWriteMany: "RWX",
  ReadWriteOncePod: "RWOP",
};

/** `GetAccessModesAsString`: the short forms in kube's fixed order, each once. */
function accessModes(modes: string[] | undefined): string {
  const set = new Set(modes ?? []);
  return Object.keys(ACCESS_MODES).filter((m) => set.has(m)).map((m) => ACCESS_MODES[m]).join(",");
}

/** The kind/name of an object's controller owner, lowercased kind.group (`daemonset.apps/x`), or `<none>`. */
function controllerOf(obj: Any): string {
  const ref = (obj.metadata?.ownerReferences ?? []).find((r: Any) => r.controller === true);
  if (!ref) return "<none>";
  const apiVersion: string = ref.apiVersion ?? "";
  const group = apiVersion.includes("/") ? apiVersion.split("/")[0] : "";
  const kind = group ? `${ref.kind}.${group}` : ref.kind;
  return kind ? `${kind.toLowerCase()}/${ref.name}` : ref.name;
}

function conditionTrue(obj: Any, type: string): boolean {
  return (obj.status?.conditions ?? []).some((c: Any) => c.type === type && c.status === "True");
}

function jobStatus(job: Any): string {
  if (conditionTrue(job, "Failed")) return "Failed";
  if (conditionTrue(job, "Complete")) return "Complete";
  if (conditionTrue(job, "Suspended")) return "Suspended";
  if (conditionTrue(job, "FailureTarget")) return "FailureTarget";
  if (conditionTrue(job, "SuccessCriteriaMet")) return "SuccessCriteriaMet";
  if (job.metadata?.deletionTimestamp) return "Terminating";
  return "Running";
}

function jobCompletions(job: Any): string {
  const succeeded = job.status?.succeeded ?? 0;
  if (job.spec?.completions != null) return `${succeeded}/${job.spec.completions}`;
  const parallelism = job.spec?.parallelism ?? 0;
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function jobDuration(job: Any, nowMs: number): string {
  const start = job.status?.startTime;
  if (!start) return "";
  const end = job.status?.completionTime ? Date.parse(job.status.completionTime) : nowMs;
  return humanDuration(end - Date.parse(start));
}

/** `formatHPAMetrics` for Resource and ContainerResource metrics; other metric types print `<unknown>` targets. */
function hpaTargets(hpa: Any): string {
  const specs: Any[] = hpa.spec?.metrics ?? [];
  if (specs.length === 0) return "<none>";
  const statuses: Any[] = hpa.status?.currentMetrics ?? [];
  const list: string[] = [];
  for (const [i, spec] of specs.entries()) {
    const source = spec.resource ?? spec.containerResource;
    const current = statuses[i]?.resource?.current ?? statuses[i]?.containerResource?.current;
    if (!source) {
      list.push("<unknown>/<unknown>");
    } else if (source.target?.averageValue != null) {
      list.push(`${source.name}: ${current?.averageValue ?? "<unknown>"}/${source.target.averageValue}`);
    } else {
      const now = current?.averageUtilization != null ? `${current.averageUtilization}%` : "<unknown>";
      const target = source.target?.averageUtilization != null ? `${source.target.averageUtilization}%` : "<auto>";
      list.push(`${source.name}: ${now}/${target}`);
    }
  }
  if (list.length > 2) return `${list.slice(0, 2).join(", ")} + ${specs.length - 2} more...`;
  return list.join(", ");
}

/** `printResourceQuota`: `name: used/hard` of status.hard, requests and `limits.` ones apart. */
function quotaColumns(quota: Any): [string, string] {
  const hard: Record<string, string> = quota.status?.hard ?? {};
  const used: Record<string, string> = quota.status?.used ?? {};
  const request: string[] = [];
  const limit: string[] = [];
  for (const name of Object.keys(hard).sort(compareStrings)) {
    const pieces = name.split(".");
    (pieces.length > 1 && pieces[0] === "limits" ? limit : request).push(`${name}: ${used[name] ?? "0"}/${hard[name]}`);
  }
  return [request.join(", "), limit.join(", ")];
}

const intOrString = (v: unknown): string => v == null ? "N/A" : String(v);

/** Row functions by printer (`group/Kind`). */
export const WORKLOAD_ROWS: Record<string, RowCells> = {
  "/PersistentVolume": (pv, now) => {
    const ref = pv.spec?.claimRef;
    return [
      pv.metadata.name,
      pv.spec?.capacity?.storage ?? "0",
      accessModes(pv.spec?.accessModes),
      pv.spec?.persistentVolumeReclaimPolicy ?? "",
      pv.status?.phase ?? "",
      ref ? `${ref.namespace}/${ref.name}` : "",
      pv.spec?.storageClassName ?? pv.metadata.annotations?.["volume.beta.kubernetes.io/storage-class"] ?? "",
      pv.spec?.volumeAttributesClassName || "<unset>",
      pv.status?.reason ?? "",
      ageCell(pv, now),
      pv.spec?.volumeMode ?? "<unset>",
    ];
  },
  "/PersistentVolumeClaim": (pvc, now) => {
    const bound = !!pvc.spec?.volumeName;
    return [
      pvc.metadata.name,
      pvc.metadata.deletionTimestamp ? "Terminating" : pvc.status?.phase ?? "",
      pvc.spec?.volumeName ?? "",
      bound ? pvc.status?.capacity?.storage ?? "0" : "",
      bound ? accessModes(pvc.status?.accessModes) : "",
      pvc.spec?.storageClassName ?? pvc.metadata.annotations?.["volume.beta.kubernetes.io/storage-class"] ?? "",
      pvc.status?.currentVolumeAttributesClassName || "<unset>",
      ageCell(pvc, now),
      pvc.spec?.volumeMode ?? "<unset>",
    ];
  },
  "/PodTemplate": (t) => [
    t.metadata.name,
    ...containersAndImages(t.template?.spec),
    formatLabels(t.template?.metadata?.labels),
  ],
  "/ReplicationController": (rc, now) => [
    rc.metadata.name,
    rc.spec?.replicas ?? 0,
    rc.status?.replicas ?? 0,
    rc.status?.readyReplicas ?? 0,
    ageCell(rc, now),
    ...containersAndImages(rc.spec?.template?.spec),
    formatLabels(rc.spec?.selector),
  ],
  "/ResourceQuota": (q, now) => [q.metadata.name, ...quotaColumns(q), ageCell(q, now)],
  "apps/ReplicaSet": (rs, now) => [
    rs.metadata.name,
    rs.spec?.replicas ?? 0,
    rs.status?.replicas ?? 0,
    rs.status?.readyReplicas ?? 0,
    ageCell(rs, now),
    ...containersAndImages(rs.spec?.template?.spec),
    formatLabelSelector(rs.spec?.selector),
  ],
  "apps/DaemonSet": (ds, now) => [
    ds.metadata.name,
    ds.status?.desiredNumberScheduled ?? 0,
    ds.status?.currentNumberScheduled ?? 0,
    ds.status?.numberReady ?? 0,
    ds.status?.updatedNumberScheduled ?? 0,
    ds.status?.numberAvailable ?? 0,
    formatLabels(ds.spec?.template?.spec?.nodeSelector),
    ageCell(ds, now),
    ...containersAndImages(ds.spec?.template?.spec),
    formatLabelSelector(ds.spec?.selector),
  ],
  "apps/StatefulSet": (ss, now) => [
    ss.metadata.name,
    `${ss.status?.readyReplicas ?? 0}/${ss.spec?.replicas ?? 0}`,
    ageCell(ss, now),
    ...containersAndImages(ss.spec?.template?.spec),
  ],
  "apps/ControllerRevision": (cr, now) => [cr.metadata.name, controllerOf(cr), cr.revision ?? 0, ageCell(cr, now)],
  "batch/Job": (job, now) => [
    job.metadata.name,
    jobStatus(job),
    jobCompletions(job),
    jobDuration(job, now),
    ageCell(job, now),
    ...containersAndImages(job.spec?.template?.spec),
    formatLabelSelector(job.spec?.selector),
  ],
  "batch/CronJob": (cj, now) => [
    cj.metadata.name,
    cj.spec?.schedule ?? "",
    cj.spec?.timeZone ?? "<none>",
    cj.spec?.suspend == null ? "<unset>" : cj.spec.suspend ? "True" : "False",
    (cj.status?.active ?? []).length,
    cj.status?.lastScheduleTime ? since(cj.status.lastScheduleTime, now) : "<none>",
    ageCell(cj, now),
    ...containersAndImages(cj.spec?.jobTemplate?.spec?.template?.spec),
    formatLabelSelector(cj.spec?.jobTemplate?.spec?.selector),
  ],
  // kube prints the internal (v2) form: an autoscaling/v1 object is converted back first.
  "autoscaling/HorizontalPodAutoscaler": (served, now) => {
    const hpa = served.apiVersion === "autoscaling/v1" ? hpaV1ToV2(served) : served;
    return [
      hpa.metadata.name,
      `${hpa.spec?.scaleTargetRef?.kind ?? ""}/${hpa.spec?.scaleTargetRef?.name ?? ""}`,
      hpaTargets(hpa),
      hpa.spec?.minReplicas == null ? "<unset>" : String(hpa.spec.minReplicas),
      hpa.spec?.maxReplicas ?? 0,
      hpa.status?.currentReplicas ?? 0,
      ageCell(hpa, now),
    ];
  },
  "policy/PodDisruptionBudget": (pdb, now) => [
    pdb.metadata.name,
    intOrString(pdb.spec?.minAvailable),
    intOrString(pdb.spec?.maxUnavailable),
    pdb.status?.disruptionsAllowed ?? 0,
    ageCell(pdb, now),
  ],
};
