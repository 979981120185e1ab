/**
 * {@link FarmCluster} on the runtime's KubeClient and Informer: SubjectAccessReview and TokenReview are POSTed
 * (authorization.k8s.io/v1, authentication.k8s.io/v1), ConfigMaps are read and written with resourceVersion
 * preconditions, and Pods come from one shared informer (list+watch with bookmarks), never a list per request.
 * @module
 */
import { reviewAccess, reviewToken } from "../runtime/client/access_review.ts";
import { isNotFound } from "../runtime/client/errors.ts";
import { Informer } from "../runtime/cache/cache.ts";
import type { KubeClient } from "../runtime/client/client.ts";
import type { APIService } from "../runtime/builtin_types.ts";
import { CoreTypes, type KubeObject } from "../runtime/types.ts";
import type {
  AccessAttributes,
  AccessDecision,
  ConfigMapObject,
  FarmCluster,
  PodCache,
  PodObject,
  SecretObject,
  TokenDecision,
  UserInfo,
} from "./cluster.ts";

/** Adapts an Informer of Pods to {@link PodCache}. */
export function podCacheFromInformer(informer: Informer<KubeObject>): PodCache {
  return {
    get: (key) => informer.store.get(key) as PodObject | undefined,
    list: (namespace) => informer.store.list(namespace) as PodObject[],
    hasSynced: () => informer.hasSynced(),
    lastError: () => informer.health().lastError,
    addHandler(h) {
      // Informer.addHandler replays the cache as `added` synchronously; a watch wants only later changes.
      let replaying = true;
      const off = informer.addHandler({
        added: (o) => !replaying && h.added?.(o as PodObject),
        modified: (old, o) => h.modified?.(old as PodObject, o as PodObject),
        deleted: (o) => h.deleted?.(o as PodObject),
      });
      replaying = false;
      return off;
    },
  };
}

/**
 * The cluster through a KubeClient.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InformerRegistry } from "../runtime/cache/informers.ts";
 * import { KubeClient } from "../runtime/client/client.ts";
 * import { CoreTypes } from "../runtime/types.ts";
 * import { startFakeApiServer } from "../testing/mod.ts";
 * import { KubeFarmCluster, podCacheFromInformer } from "./kube_cluster.ts";
 * const fake = await startFakeApiServer({ anonymousAdmin: true });
 * const client = new KubeClient({ config: { server: fake.url } }); // loadClusterConfig({ kubeconfig, context }) in main
 * const informers = new InformerRegistry({ client });
 * const cluster = new KubeFarmCluster({ client, pods: podCacheFromInformer(informers.get(CoreTypes.Pod)) });
 * const ctrl = new AbortController();
 * const running = informers.start(ctrl.signal);
 * await informers.waitForSync(10_000);
 * assert.ok(await cluster.getConfigMap("kube-system", "extension-apiserver-authentication")); // the requestheader CA
 * ctrl.abort();
 * await running;
 * client.close();
 * await fake.stop();
 * ```
 */
export class KubeFarmCluster implements FarmCluster {
  readonly #client: KubeClient;
  readonly pods?: PodCache;

  /** Creates the instance from its options. */
  constructor(opts: { client: KubeClient; pods?: PodCache }) {
    this.#client = opts.client;
    this.pods = opts.pods;
  }

  /** Asks the cluster whether `user` may do `attrs`. */
  subjectAccessReview(user: UserInfo, attrs: AccessAttributes): Promise<AccessDecision> {
    return reviewAccess(this.#client, user, attrs);
  }

  async tokenReview(token: string): Promise<TokenDecision> {
    const user = await reviewToken(this.#client, token);
    return user ? { authenticated: true, user } : { authenticated: false };
  }

  async getConfigMap(namespace: string, name: string): Promise<ConfigMapObject | undefined> {
    try {
      return await this.#client.get<ConfigMapObject>(CoreTypes.ConfigMap, name, { namespace });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  createConfigMap(cm: ConfigMapObject): Promise<ConfigMapObject> {
    return this.#client.create<ConfigMapObject>(CoreTypes.ConfigMap, cm);
  }

  updateConfigMap(cm: ConfigMapObject): Promise<ConfigMapObject> {
    return this.#client.update<ConfigMapObject>(CoreTypes.ConfigMap, cm);
  }

  /** An informer on the one ConfigMap (field selector `metadata.name`): relists and resumes like any cache. */
  async watchConfigMap(namespace: string, name: string, onChange: () => void, signal: AbortSignal): Promise<void> {
    const informer = new Informer<ConfigMapObject>({
      client: this.#client,
      resource: CoreTypes.ConfigMap,
      namespace,
      fieldSelector: `metadata.name=${name}`,
    });
    informer.addHandler({ added: onChange, modified: onChange, deleted: onChange });
    await informer.start(signal);
  }

  async getSecret(namespace: string, name: string): Promise<SecretObject | undefined> {
    try {
      return await this.#client.get<SecretObject>(CoreTypes.Secret, name, { namespace });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  createSecret(secret: SecretObject): Promise<SecretObject> {
    return this.#client.create<SecretObject>(CoreTypes.Secret, secret);
  }

  updateSecret(secret: SecretObject): Promise<SecretObject> {
    return this.#client.update<SecretObject>(CoreTypes.Secret, secret);
  }

  async setAPIServiceCABundle(name: string, caBundle: string): Promise<boolean> {
    const current = await this.#client.get<APIService>(CoreTypes.APIService, name);
    if (current.spec?.caBundle === caBundle && !current.spec?.insecureSkipTLSVerify) return false;
    await this.#client.patch(CoreTypes.APIService, name, {
      metadata: { resourceVersion: current.metadata.resourceVersion },
      spec: { caBundle, insecureSkipTLSVerify: null },
    }, { type: "merge" });
    return true;
  }
}
