/**
 * What the farm server needs from the Kubernetes cluster behind it, as one small interface: SubjectAccessReview and
 * TokenReview for delegated auth, get/create/update of ConfigMaps (storage and the extension-apiserver-authentication
 * ConfigMap), and a synced Pod cache for FarmPods. Tests use an in-memory implementation; {@link ./kube_cluster.ts}
 * adapts the runtime's KubeClient and Informer.
 * @module
 */
import type { ReviewAttributes, ReviewDecision, ReviewedUser } from "../runtime/client/access_review.ts";
import type { KubeObject } from "../runtime/types.ts";

/**
 * The user a request acts as (authentication.k8s.io UserInfo: X-Remote-User and -Group, X-Remote-Extra-* with keys
 * lower-cased, or a TokenReview's user), as runtime/client/access_review.ts reviews it.
 */
export type UserInfo = ReviewedUser;

/** authorization.k8s.io/v1 ResourceAttributes / NonResourceAttributes (`path` set) of one request. */
export type AccessAttributes = ReviewAttributes;

/** A SubjectAccessReview's answer. */
export type AccessDecision = ReviewDecision;

/** A TokenReview's answer. */
export interface TokenDecision {
  /** Whether the token is valid. */
  authenticated: boolean;
  /** The token's user. */
  user?: UserInfo;
}

/** A ConfigMap as far as the farm server reads and writes it. */
export interface ConfigMapObject extends KubeObject {
  /** Data, as on the wire. */
  data?: Record<string, string>;
}

/** A Secret as far as the serving-cert store reads and writes it (data base64, as on the wire). */
export interface SecretObject extends KubeObject {
  /** Secret type, e.g. kubernetes.io/tls. */
  type?: string;
  /** Data, as on the wire. */
  data?: Record<string, string>;
}

/** A Pod as far as FarmPods read it. */
export interface PodObject extends KubeObject {
  /** Only `containers` is read (its length). */
  spec?: { containers?: unknown[]; [field: string]: unknown };
}

/** Read access to a synced Pod cache (the subset of the runtime's Informer that FarmPods use). */
export interface PodCache {
  /** By `namespace/name`. */
  get(key: string): PodObject | undefined;
  /** Objects of one namespace, or all. */
  list(namespace?: string): PodObject[];
  /** True once the first full list is stored. */
  hasSynced(): boolean;
  /** Registers change handlers; returns an unregister function. */
  addHandler(h: {
    added?(obj: PodObject): void;
    modified?(old: PodObject, obj: PodObject): void;
    deleted?(obj: PodObject): void;
  }): () => void;
  /** Why the cache is not usable right now (a failing list/watch), if known. */
  lastError?(): string | undefined;
}

/** The cluster, as the farm server sees it. Every method may throw an ApiError. */
export interface FarmCluster {
  /** Asks the cluster whether `user` may do `attrs`. */
  subjectAccessReview(user: UserInfo, attrs: AccessAttributes): Promise<AccessDecision>;
  /** Optional: bearer tokens are rejected when absent. */
  tokenReview?(token: string): Promise<TokenDecision>;
  /** undefined when the ConfigMap does not exist. */
  getConfigMap(namespace: string, name: string): Promise<ConfigMapObject | undefined>;
  /** 409 AlreadyExists when it exists. */
  createConfigMap(cm: ConfigMapObject): Promise<ConfigMapObject>;
  /** PUT with metadata.resourceVersion as precondition: 409 Conflict when stale. */
  updateConfigMap(cm: ConfigMapObject): Promise<ConfigMapObject>;
  /**
   * Optional: calls `onChange` whenever the ConfigMap `namespace/name` is created, changed or deleted (by anyone),
   * until `signal` aborts; resolves then. Replicas sharing configmap storage follow each other's writes through it.
   */
  watchConfigMap?(namespace: string, name: string, onChange: () => void, signal: AbortSignal): Promise<void>;
  /** Optional (--cert-secret): undefined when the Secret does not exist. */
  getSecret?(namespace: string, name: string): Promise<SecretObject | undefined>;
  /** Optional (--cert-secret): 409 AlreadyExists when it exists. */
  createSecret?(secret: SecretObject): Promise<SecretObject>;
  /** Optional (--cert-secret): PUT with resourceVersion precondition. */
  updateSecret?(secret: SecretObject): Promise<SecretObject>;
  /** Optional (--apiservice-name): sets APIService spec.caBundle (base64 PEM) when it differs; false if unchanged. */
  setAPIServiceCABundle?(name: string, caBundle: string): Promise<boolean>;
  /** The Pod cache, or undefined when this deployment serves no FarmPods. */
  pods?: PodCache;
}
