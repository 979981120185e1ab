/**
 * The ServiceAccount admission plugin (kube-apiserver runs it by default), on pod creation: a Pod without
 * `serviceAccountName` runs as `default`; unless the pod or its ServiceAccount turns `automountServiceAccountToken`
 * off, the pod gets the projected volume `kube-api-access-<5 random characters>` (a bound token expiring after 3607 s,
 * the `kube-root-ca.crt` ConfigMap's `ca.crt`, the namespace from the downward API) mounted read-only at
 * /var/run/secrets/kubernetes.io/serviceaccount in every container and init container that does not mount that path
 * already; a pod without imagePullSecrets gets its ServiceAccount's. A ServiceAccount that does not exist is 403
 * `error looking up service account <ns>/<name>: serviceaccount "<name>" not found`; with the account's
 * `kubernetes.io/enforce-mountable-secrets: "true"` annotation, a pod may reference (secret volumes, env, envFrom,
 * imagePullSecrets) only the secrets it lists (403). Mirror pods are not mutated and may reference no ServiceAccount,
 * no secret and no token projection (403). The validating phase checks the pod again (a webhook may have changed it).
 *
 * Difference from kube: the account `default` missing is admitted as if it existed with defaults. kube retries it for
 * about a second, and kube-controller-manager's ServiceAccount controller (re)creates it in every namespace meanwhile;
 * the fake runs that controller only with `defaultNamespaceObjects`, and pods in tests would otherwise need one made.
 * @module
 */
import type { AdmissionContext, AdmissionHook } from "./admission.ts";
import type { ObjectStore } from "./object_storage.ts";
import { forbidden } from "./status_errors.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

/** Where kube mounts the ServiceAccount credentials in every container. */
export const SERVICE_ACCOUNT_MOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount";
/** serviceaccount.WarnOnlyBoundTokenExpirationSeconds: the token's lifetime as admission requests it. */
const TOKEN_EXPIRATION_SECONDS = 3607;
/** apimachinery's utilrand alphabet (no vowels, no confusable digits). */
const ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
const MIRROR_ANNOTATION = "kubernetes.io/config.mirror";
/** A ServiceAccount annotated `"true"` limits its pods to the secrets it lists. */
const ENFORCE_MOUNTABLE_SECRETS = "kubernetes.io/enforce-mountable-secrets";

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

/** kube's limitSecretReferences: the first secret a pod references that its account does not list, worded as kube. */
function unlistedSecret(account: Json, pod: Json): string | undefined {
  const names = (list: unknown) => new Set((listOf(list) ?? []).map((s) => (isRecord(s) ? s.name : undefined)));
  const mountable = names(account.secrets);
  const why = `is not allowed because service account ${account.metadata.name} does not reference that secret`;
  for (const volume of listOf(pod.spec.volumes) ?? []) {
    const secret = isRecord(volume) && isRecord(volume.secret) ? volume.secret.secretName : undefined;
    if (secret !== undefined && !mountable.has(secret)) return `volume with secret.secretName="${secret}" ${why}`;
  }
  for (const [label, list] of [["init container", pod.spec.initContainers], ["container", pod.spec.containers]]) {
    for (const c of (listOf(list) ?? []).filter(isRecord)) {
      for (const env of (listOf(c.env) ?? []).filter(isRecord)) {
        const ref = isRecord(env.valueFrom) && isRecord(env.valueFrom.secretKeyRef) ? env.valueFrom.secretKeyRef : null;
        if (ref && !mountable.has(ref.name)) {
          return `${label} ${c.name} with envVar ${env.name} referencing secret.secretName="${ref.name}" ${why}`;
        }
      }
      for (const from of (listOf(c.envFrom) ?? []).filter(isRecord)) {
        if (isRecord(from.secretRef) && !mountable.has(from.secretRef.name)) {
          return `${label} ${c.name} with envFrom referencing secret.secretName="${from.secretRef.name}" ${why}`;
        }
      }
    }
  }
  const pullable = names(account.imagePullSecrets);
  for (const [i, ref] of (listOf(pod.spec.imagePullSecrets) ?? []).entries()) {
    if (isRecord(ref) && !pullable.has(ref.name)) {
      return `imagePullSecrets[${i}].name="${ref.name}" is not allowed because service account ${account.metadata.name} does not reference that imagePullSecret`;
    }
  }
  return undefined;
}

/** Whether a mirror pod references a secret anywhere (kube's VisitPodSecretNames, the common places). */
function referencesSecret(spec: Json): boolean {
  if ((listOf(spec.imagePullSecrets) ?? []).length > 0) return true;
  const volumes = (listOf(spec.volumes) ?? []).filter(isRecord);
  if (volumes.some((v) => isRecord(v.secret) || (listOf(v.projected?.sources) ?? []).some((s) => s?.secret))) {
    return true;
  }
  const containers = [spec.initContainers, spec.containers, spec.ephemeralContainers].flatMap((l) => listOf(l) ?? []);
  return containers.filter(isRecord).some((c) =>
    (listOf(c.env) ?? []).some((e) => e?.valueFrom?.secretKeyRef) ||
    (listOf(c.envFrom) ?? []).some((f) => f?.secretRef)
  );
}

/**
 * The plugin's Validate: what a created pod must satisfy (both phases run it; mutating first, as kube's Admit ends in
 * Validate). Returns the ServiceAccount, or undefined for a mirror pod or an assumed `default`.
 */
function validatePod(objects: ObjectStore, ctx: AdmissionContext): Json | undefined {
  const pod = ctx.object;
  const spec = pod.spec as Json;
  const namespace = pod.metadata.namespace ?? "";
  const refuse = (why: string) => forbidden(ctx.def, pod.metadata.name ?? "", why, "create");
  if (isMirror(pod)) {
    if (spec.serviceAccountName) throw refuse("a mirror pod may not reference service accounts");
    if (referencesSecret(spec)) throw refuse("a mirror pod may not reference secrets");
    const projections = (listOf(spec.volumes) ?? []).flatMap((v) => listOf(v?.projected?.sources) ?? []);
    if (projections.some((s) => s?.serviceAccountToken)) {
      throw refuse("a mirror pod may not use ServiceAccountToken volume projections");
    }
    return undefined;
  }
  const name = spec.serviceAccountName;
  if (!name) throw refuse(`no service account specified for pod ${namespace}/${pod.metadata.name ?? ""}`);
  const account = objects.get("/serviceaccounts", namespace, String(name));
  if (!account) {
    if (name === "default") return undefined;
    throw refuse(`error looking up service account ${namespace}/${name}: serviceaccount "${name}" not found`);
  }
  const enforce = account.metadata.annotations?.[ENFORCE_MOUNTABLE_SECRETS];
  if (typeof enforce === "string" && ["1", "t", "T", "true", "TRUE", "True"].includes(enforce)) {
    const why = unlistedSecret(account, pod);
    if (why) throw refuse(why);
  }
  return account;
}

const isMirror = (pod: Json) => isRecord(pod.metadata.annotations) && MIRROR_ANNOTATION in pod.metadata.annotations;
const handles = (ctx: AdmissionContext) =>
  ctx.def.group === "" && ctx.def.plural === "pods" && !ctx.subresource && ctx.verb === "create" &&
  isRecord(ctx.object.spec);

/** The plugin's validating half: a pod a webhook changed is checked again. */
export function serviceAccountValidation(objects: ObjectStore): AdmissionHook {
  return (ctx) => {
    if (handles(ctx)) validatePod(objects, ctx);
  };
}

/** The ServiceAccount plugin over the store's ServiceAccounts (its mutating half, which ends in its Validate). */
export function serviceAccountAdmission(objects: ObjectStore): AdmissionHook {
  return (ctx) => {
    if (!handles(ctx)) return;
    const pod = ctx.object;
    const spec = pod.spec;
    if (isMirror(pod)) return void validatePod(objects, ctx);
    if (!spec.serviceAccountName) spec.serviceAccountName = spec.serviceAccount || "default";
    if (typeof spec.serviceAccountName !== "string") return;
    const account = validatePod(objects, ctx);
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
