/**
 * The ServiceAccount admission plugin (kube-apiserver runs it by default), on pod creation: a Pod without
 * `serviceAccountName` runs as `default`; unless the pod or its ServiceAccount turns `automountServiceAccountToken`
 * off, the pod gets the projected volume `kube-api-access-<5 random characters>` (a bound token expiring after 3607 s,
 * the `kube-root-ca.crt` ConfigMap's `ca.crt`, the namespace from the downward API) mounted read-only at
 * /var/run/secrets/kubernetes.io/serviceaccount in every container and init container that does not mount that path
 * already; a pod without imagePullSecrets gets its ServiceAccount's. Mirror pods are left alone.
 *
 * Difference from kube: a ServiceAccount that does not exist is not an error (kube refuses the pod with 403 "error
 * looking up service account"): the fake runs no ServiceAccount controller unless `defaultNamespaceObjects` is on, and
 * pods in tests would otherwise need one made first. The pod is admitted as if the account existed with defaults.
 * @module
 */
import type { AdmissionHook } from "./admission.ts";
import type { ObjectStore } from "./object_storage.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

/** Where kube mounts the ServiceAccount credentials in every container. */
export const SERVICE_ACCOUNT_MOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount";
/** serviceaccount.WarnOnlyBoundTokenExpirationSeconds: the token's lifetime as admission requests it. */
const TOKEN_EXPIRATION_SECONDS = 3607;
/** apimachinery's utilrand alphabet (no vowels, no confusable digits). */
const ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
const MIRROR_ANNOTATION = "kubernetes.io/config.mirror";

/**
 * `kube-api-access-` and 5 characters of kube's random-name alphabet. kube draws them at random; the fake derives them
 * from the pod as admission received it (FNV-1a of its JSON, managedFields aside: an apply stamps them per run), so
 * that a write replayed around webhook calls (admission_replay.ts) admits the same pod each time and settles.
 */
function volumeName(pod: Json): string {
  let hash = 0x811c9dc5;
  const text = JSON.stringify({ ...pod, metadata: { ...pod.metadata, managedFields: undefined } });
  for (const ch of text) hash = Math.imul(hash ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  let suffix = "";
  for (let i = 0; i < 5; i++, hash = Math.floor(hash / ALPHABET.length)) suffix += ALPHABET[hash % ALPHABET.length];
  return `kube-api-access-${suffix}`;
}

/** The projected volume kube adds (defaultMode 0644). */
function tokenVolume(name: string): Json {
  return {
    name,
    projected: {
      sources: [
        { serviceAccountToken: { expirationSeconds: TOKEN_EXPIRATION_SECONDS, path: "token" } },
        { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
        {
          downwardAPI: {
            items: [{ path: "namespace", fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" } }],
          },
        },
      ],
      defaultMode: 0o644,
    },
  };
}

const isRecord = (v: unknown): v is Json => Boolean(v) && typeof v === "object" && !Array.isArray(v);
const listOf = (v: unknown): Json[] | undefined =>
  v === undefined || v === null ? [] : Array.isArray(v) ? v : undefined;

/** The ServiceAccount plugin over the store's ServiceAccounts. */
export function serviceAccountAdmission(objects: ObjectStore): AdmissionHook {
  return (ctx) => {
    if (ctx.def.group !== "" || ctx.def.plural !== "pods" || ctx.subresource || ctx.verb !== "create") return;
    const pod = ctx.object;
    const spec = pod.spec;
    if (!isRecord(spec) || isRecord(pod.metadata.annotations) && MIRROR_ANNOTATION in pod.metadata.annotations) return;
    if (!spec.serviceAccountName) spec.serviceAccountName = spec.serviceAccount || "default";
    if (typeof spec.serviceAccountName !== "string") return;
    const account = objects.get("/serviceaccounts", pod.metadata.namespace ?? "", spec.serviceAccountName);
    const pullSecrets = listOf(spec.imagePullSecrets);
    if (pullSecrets?.length === 0 && Array.isArray(account?.imagePullSecrets) && account.imagePullSecrets.length > 0) {
      spec.imagePullSecrets = account.imagePullSecrets.map((s: Json) => ({ name: s?.name }));
    }
    const automount = spec.automountServiceAccountToken ?? account?.automountServiceAccountToken ?? true;
    if (automount === false) return;
    const volumes = listOf(spec.volumes);
    const containers = [listOf(spec.initContainers), listOf(spec.containers)];
    if (!volumes || containers.some((list) => !list || !list.every(isRecord))) return;
    // A volume already named like the token volume is reused (kube: a pod re-created from a stored one).
    const existing = volumes.find((v) => isRecord(v) && String(v.name).startsWith("kube-api-access-"));
    const name = existing ? String(existing.name) : volumeName(pod);
    let mounted = false;
    for (const container of containers.flat() as Json[]) {
      const mounts = listOf(container.volumeMounts);
      if (!mounts || mounts.some((m) => isRecord(m) && m.mountPath === SERVICE_ACCOUNT_MOUNT_PATH)) continue;
      container.volumeMounts = [...mounts, { name, readOnly: true, mountPath: SERVICE_ACCOUNT_MOUNT_PATH }];
      mounted = true;
    }
    if (mounted && !existing) spec.volumes = [...volumes, tokenVolume(name)];
  };
}
