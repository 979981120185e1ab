/**
 * The MultiSecret's children: what a child Secret looks like (name, data, owner label and annotations) and how a
 * Secret names its owner. Pure functions; the controller decides what to write.
 * @module
 */

import { deepEqual } from "../../runtime/apimachinery/equality.ts";
import type { KubeObject } from "../../runtime/types.ts";
import type { MultiSecret } from "./schema.ts";

/** Owner annotations on every child. */
export const OWNER_NAME = "multi.ddnw.ml/owner-name";
/** Owner namespace annotation. */
export const OWNER_NAMESPACE = "multi.ddnw.ml/owner-namespace";
/** Owner uid annotation (and label: the Secret watch selects on it). */
export const OWNER_UID = "multi.ddnw.ml/owner-uid";
/** The label selector of the Secret informer: only our children are cached. */
export const CHILD_SELECTOR = OWNER_UID;

function base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

/** The child Secret `ms` wants in `namespace` (data = spec.data with stringData folded in, base64). */
export function desiredChild(ms: MultiSecret, namespace: string): KubeObject {
  const data: Record<string, string> = { ...(ms.spec?.data ?? {}) };
  for (const [k, v] of Object.entries(ms.spec?.stringData ?? {})) data[k] = base64(v);
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name: childNameOf(ms),
      namespace,
      labels: { [OWNER_UID]: ms.metadata.uid! },
      annotations: {
        [OWNER_NAME]: ms.metadata.name!,
        [OWNER_NAMESPACE]: ms.metadata.namespace!,
        [OWNER_UID]: ms.metadata.uid!,
      },
    },
    type: ms.spec?.type ?? "Opaque",
    data,
  };
}

/** The children's name. */
export function childNameOf(ms: MultiSecret): string {
  return ms.spec?.secretName ?? ms.metadata.name!;
}

/** Whether `secret` is `ms`'s child: its owner-uid is `ms`'s, or it predates the uid and names `ms`. */
export function isOurs(secret: KubeObject, ms: MultiSecret): boolean {
  const a = secret.metadata.annotations ?? {};
  if (a[OWNER_UID]) return a[OWNER_UID] === ms.metadata.uid;
  return a[OWNER_NAME] === ms.metadata.name && a[OWNER_NAMESPACE] === ms.metadata.namespace;
}

/** Whether `have` already carries `want`'s data and our owner label and annotations (and no last-applied copy). */
export function sameContent(have: KubeObject, want: KubeObject): boolean {
  const a = have.metadata.annotations ?? {};
  return deepEqual(have.data ?? {}, want.data ?? {}) &&
    have.metadata.labels?.[OWNER_UID] === want.metadata.labels![OWNER_UID] &&
    [OWNER_NAME, OWNER_NAMESPACE, OWNER_UID].every((k) => a[k] === want.metadata.annotations![k]) &&
    !a["kubectl.kubernetes.io/last-applied-configuration"];
}

/** Whether `child`'s owner annotations name `ms` (whatever uid it carries). */
export function namesOwner(child: KubeObject, ms: MultiSecret): boolean {
  const a = child.metadata.annotations ?? {};
  return a[OWNER_NAME] === ms.metadata.name && a[OWNER_NAMESPACE] === ms.metadata.namespace;
}

/** Secret → its owner's key, from the owner annotations. */
export function ownerOfSecret(secret: KubeObject): string[] {
  const a = secret.metadata.annotations ?? {};
  return a[OWNER_NAME] && a[OWNER_NAMESPACE] ? [`${a[OWNER_NAMESPACE]}/${a[OWNER_NAME]}`] : [];
}
