/**
 * A pod spec's volumes, its containers' volume mounts and env, as kube-apiserver v1.37's ValidateVolumes,
 * ValidateVolumeMounts and ValidateEnv judge them: a volume has a DNS-label name, once, and exactly one source (a
 * second is Forbidden under the field name kube's code uses — `downwarAPI` and `cephFS` included); a mount names a
 * volume that passed, with a mount path unique in its container; an env var has a name of printable ASCII without
 * `=`, and its valueFrom exactly one source and no `value` beside it. A volume that names no source is defaulted to an
 * emptyDir first, as SetDefaults_Volume does. Deeper source rules (each volume type's own
 * fields, field and key selectors) are not modelled.
 * @module
 */
import type { StatusCause } from "../../../runtime/client/errors.ts";
import { dns1123LabelErrors } from "../../../runtime/apimachinery/names.ts";
import { fieldDuplicate, fieldForbidden, fieldInvalid, fieldNotFound, fieldRequired } from "./field_errors.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

/** Volume sources in the order validateVolumeSource checks them: [JSON field, the path kube reports a second one at]. */
const SOURCES: ReadonlyArray<[field: string, reported: string]> = [
  ["emptyDir", "emptyDir"],
  ["hostPath", "hostPath"],
  ["gitRepo", "gitRepo"],
  ["gcePersistentDisk", "gcePersistentDisk"],
  ["awsElasticBlockStore", "awsElasticBlockStore"],
  ["secret", "secret"],
  ["nfs", "nfs"],
  ["iscsi", "iscsi"],
  ["glusterfs", "glusterfs"],
  ["flocker", "flocker"],
  ["persistentVolumeClaim", "persistentVolumeClaim"],
  ["rbd", "rbd"],
  ["cinder", "cinder"],
  ["cephfs", "cephFS"],
  ["quobyte", "quobyte"],
  ["downwardAPI", "downwarAPI"],
  ["fc", "fc"],
  ["flexVolume", "flexVolume"],
  ["configMap", "configMap"],
  ["azureFile", "azureFile"],
  ["vsphereVolume", "vsphereVolume"],
  ["photonPersistentDisk", "photonPersistentDisk"],
  ["portworxVolume", "portworxVolume"],
  ["azureDisk", "azureDisk"],
  ["storageos", "storageos"],
  ["projected", "projected"],
  ["scaleIO", "scaleIO"],
  ["csi", "csi"],
  ["ephemeral", "ephemeral"],
  ["image", "image"],
];

/** SetDefaults_Volume: a volume that names no source is an emptyDir. */
export function defaultVolumeSources(volumes: unknown): void {
  for (const volume of Array.isArray(volumes) ? volumes : []) {
    if (volume && typeof volume === "object" && !SOURCES.some(([field]) => volume[field] != null)) volume.emptyDir = {};
  }
}

/** Causes for `volumes` at `path`, and the names of the volumes that passed (what mounts may name). */
export function volumeCauses(volumes: unknown, path: string): { causes: StatusCause[]; names: Set<string> } {
  const causes: StatusCause[] = [];
  const names = new Set<string>();
  (Array.isArray(volumes) ? volumes : []).forEach((volume: Json, i: number) => {
    const at = `${path}[${i}]`;
    const own: StatusCause[] = [];
    const present = SOURCES.filter(([field]) => volume?.[field] != null);
    present.slice(1).forEach(([, reported]) =>
      own.push(fieldForbidden(`${at}.${reported}`, "may not specify more than 1 volume type"))
    );
    if (present.length === 0) own.push(fieldRequired(at, "must specify a volume type"));
    const name = typeof volume?.name === "string" ? volume.name : "";
    if (!name) own.push(fieldRequired(`${at}.name`));
    for (const msg of name ? dns1123LabelErrors(name) : []) own.push(fieldInvalid(`${at}.name`, name, msg));
    if (names.has(name)) own.push(fieldDuplicate(`${at}.name`, name));
    if (own.length === 0) names.add(name);
    causes.push(...own);
  });
  return { causes, names };
}

/** Causes for a container's env at `path` (ValidateEnv with relaxed names and env files, as v1.37 runs it). */
export function envCauses(env: unknown, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  (Array.isArray(env) ? env : []).forEach((v: Json, i: number) => {
    const at = `${path}[${i}]`;
    const name = typeof v?.name === "string" ? v.name : "";
    if (!name) causes.push(fieldRequired(`${at}.name`));
    else if ([...name].some((c) => c < " " || c > "~" || c === "=")) {
      causes.push(
        fieldInvalid(
          `${at}.name`,
          name,
          "a valid environment variable name must consist only of printable ASCII characters other than '='",
        ),
      );
    }
    const from = v?.valueFrom;
    if (from == null) return;
    const sources = ["fieldRef", "resourceFieldRef", "configMapKeyRef", "secretKeyRef", "fileKeyRef"]
      .filter((k) => from[k] != null).length;
    if (sources === 0) {
      causes.push(
        fieldInvalid(
          `${at}.valueFrom`,
          "",
          "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef`, `secretKeyRef` or `fileKeyRef`",
        ),
      );
    } else if (typeof v.value === "string" && v.value !== "") {
      causes.push(fieldInvalid(`${at}.valueFrom`, "", "may not be specified when `value` is not empty"));
    } else if (sources > 1) {
      causes.push(fieldInvalid(`${at}.valueFrom`, "", "may not have more than one field specified at a time"));
    }
  });
  return causes;
}

/** Causes for a container's volume mounts at `path`, against the volumes that passed. */
export function volumeMountCauses(mounts: unknown, volumes: Set<string>, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const paths = new Set<string>();
  (Array.isArray(mounts) ? mounts : []).forEach((m: Json, i: number) => {
    const at = `${path}[${i}]`;
    const name = typeof m?.name === "string" ? m.name : "";
    if (!name) causes.push(fieldRequired(`${at}.name`));
    if (!volumes.has(name)) causes.push(fieldNotFound(`${at}.name`, name));
    const mountPath = typeof m?.mountPath === "string" ? m.mountPath : "";
    if (!mountPath) causes.push(fieldRequired(`${at}.mountPath`));
    if (paths.has(mountPath)) causes.push(fieldInvalid(`${at}.mountPath`, mountPath, "must be unique"));
    paths.add(mountPath);
  });
  return causes;
}
