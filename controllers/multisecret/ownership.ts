/**
 * Whose a Secret is, as far as one MultiSecret is concerned (ours, an orphan, or someone else's), with the uncached
 * owner GETs that answer it: after the API server lost its state the cache may show owners that are gone.
 * @module
 */

import type { ReconcileContext } from "../../runtime/controller/controller.ts";
import { isNotFound } from "../../runtime/client/errors.ts";
import type { KubeObject } from "../../runtime/types.ts";
import { type MultiSecret, MultiSecretType } from "./schema.ts";
import { OWNER_NAME, OWNER_NAMESPACE, OWNER_UID } from "./children.ts";

/**
 * Whose a child is, as far as `ms` is concerned: `ours` (its owner-uid is `ms`'s, or it predates the uid and names
 * `ms`), `orphan` (its owner-uid names an owner that no longer exists: a MultiSecret of `ms`'s name and namespace
 * — the name is `ms`'s now, so the uid's owner is gone — or another owner an uncached GET answers 404 or another
 * uid for), or `foreign` (someone else's: left alone).
 */
export type Ownership = "ours" | "orphan" | "foreign";

/** One reconcile's view of ownership, with the uncached owner GETs it needed (each done at most once). */
export class Owners {
  readonly #ctx: ReconcileContext;
  readonly #ms: MultiSecret;
  readonly #live = new Map<string, Promise<string | undefined>>();

  constructor(ctx: ReconcileContext, ms: MultiSecret) {
    this.#ctx = ctx;
    this.#ms = ms;
  }

  /**
   * True when the API server (an uncached GET, not the cache) has `ms` with the uid the cache shows. After the
   * server lost its state the cache may still hold a MultiSecret that is gone: creating or adopting children for
   * it would make orphans, so nothing is created or adopted unless this holds.
   */
  async confirmed(): Promise<boolean> {
    return await this.#uidOf(this.#ms.metadata.namespace!, this.#ms.metadata.name!) === this.#ms.metadata.uid;
  }

  /** Whose `secret` is (see {@link Ownership}); GETs the owner it names at most once per reconcile. */
  async of(secret: KubeObject): Promise<Ownership> {
    const a = secret.metadata.annotations ?? {};
    const uid = a[OWNER_UID] ?? secret.metadata.labels?.[OWNER_UID];
    const namesUs = a[OWNER_NAME] === this.#ms.metadata.name && a[OWNER_NAMESPACE] === this.#ms.metadata.namespace;
    if (!uid) return namesUs ? "ours" : "foreign";
    if (uid === this.#ms.metadata.uid) return "ours";
    if (namesUs) return "orphan";
    if (!a[OWNER_NAME] || !a[OWNER_NAMESPACE]) return "foreign"; // no owner to look up: hands off
    return await this.#uidOf(a[OWNER_NAMESPACE], a[OWNER_NAME]) === uid ? "foreign" : "orphan";
  }

  /** The uid of the MultiSecret `namespace/name` on the API server (uncached GET), undefined on 404. */
  #uidOf(namespace: string, name: string): Promise<string | undefined> {
    const key = `${namespace}/${name}`;
    let uid = this.#live.get(key);
    if (!uid) {
      uid = liveOwnerUid(this.#ctx, namespace, name);
      this.#live.set(key, uid);
    }
    return uid;
  }
}

/** The uid of the MultiSecret `namespace/name` on the API server (an uncached GET); undefined on 404. */
export async function liveOwnerUid(
  ctx: ReconcileContext,
  namespace: string,
  name: string,
): Promise<string | undefined> {
  try {
    return (await ctx.client.get<MultiSecret>(MultiSecretType, name, { namespace })).metadata.uid;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}
