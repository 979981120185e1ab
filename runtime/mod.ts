/**
 * kubeop: a Kubernetes operator runtime for Deno, shaped after controller-runtime and client-go.
 *
 * A {@link Controller} reconciles one kind: informer events become keys in a work queue, a reconcile returns an
 * {@link Action} ({@link done} or {@link requeueAfter}), a thrown error retries with backoff and a
 * {@link TerminalError} stops until the object changes. A {@link Manager} runs controllers with shared caches,
 * health and metrics endpoints, leader election and an ordered shutdown. {@link KubeClient} talks to the API server
 * with the credentials {@link loadClusterConfig} finds (in-cluster, `$KUBECONFIG`, `~/.kube/config`).
 *
 * The fake API server for tests is the package's second entry point, `@kubeop/kubeop/testing`; the typed built-in
 * kinds (Pod, Secret, ConfigMap, Lease, … over client-node's models) are the third, `@kubeop/kubeop/builtins`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ConfigMap } from "./builtin_types.ts";
 * import { Controller, CoreTypes, done } from "./mod.ts";
 *
 * const hello = new Controller<ConfigMap>({
 *   name: "hello",
 *   for: CoreTypes.ConfigMap,
 *   async reconcile(ctx) {
 *     if (!ctx.object || ctx.object.data?.greeting === "hello") return done();
 *     await ctx.client.patch(CoreTypes.ConfigMap, ctx.name, { data: { greeting: "hello" } }, {
 *       namespace: ctx.namespace,
 *       type: "merge",
 *     });
 *     return done();
 *   },
 * });
 * assert.equal(hello.name, "hello");
 * // With a cluster: new Manager({ client: new KubeClient({ config: await loadClusterConfig() }) })
 * //   .add(hello).start(signal);
 * ```
 * @module
 */

export {
  Controller,
  type ControllerDeps,
  type ControllerOptions,
  type InformerHandler,
  type InformerLike,
  type InformerSource,
  type MapFn,
  type ReconcileContext,
} from "./controller/controller.ts";
export { type Action, done, requeueAfter } from "./controller/reconcile.ts";
export type { Priority } from "./queue/queue.ts";
export {
  type ControllerRunnable,
  isControllerRunnable,
  type Runnable,
  type RunnableGroupName,
  type RunningRunnable,
  startRunnable,
} from "./manager/runnable.ts";
export type { ControllerPlacement, ManagerPlugin } from "./manager/manager_plugin.ts";
export {
  type Admission,
  type AdmissionTarget,
  type AdmissionTicket,
  composeAdmissions,
  type KeyAdmission,
} from "./controller/admission.ts";
export { leaderAdmission } from "./leader/leader_admission.ts";
export {
  Manager,
  type ManagerEndpoints,
  type ManagerInformers,
  type ManagerLeaderElection,
  type ManagerOptions,
} from "./manager/manager.ts";
export {
  type ClientMetrics,
  type CreateOptions,
  type DeleteOptions,
  KubeClient,
  type KubeClientOptions,
  type ListOptions,
  type NamespaceOption,
  type PatchOptions,
  type PatchType,
  type RawResponse,
  type RequestOptions,
  type UpdateOptions,
  type WatchOptions,
} from "./client/client.ts";
export type { ControllerClient } from "./controller/controller_client.ts";
export { fenceWrites, LeaderFence, type WriteFence, type WriteGate, writeGate } from "./leader/write_fence.ts";
// The write path of a reconcile: one chain of write interceptors (own-writes tracking, fence, uid guard).
export {
  guardUid,
  type OwnWritesRecorder,
  reconcileClient,
  type ReconcileClientOptions,
  trackOwnWrites,
  type UidGuard,
  type Write,
  WriteChainClient,
  type WriteInterceptor,
} from "./controller/write_path.ts";
export {
  type ClusterConfig,
  type ExecConfig,
  KubeconfigError,
  loadClusterConfig,
  type LoadClusterConfigOptions,
  loadKubeconfigFile,
  parseKubeconfig,
} from "./client/kubeconfig.ts";
export { CacheSyncTimeoutError, InformerRegistry, type InformerRegistryOptions } from "./cache/informers.ts";
export {
  ApiError,
  type CallInfo,
  isAlreadyExists,
  isClientError,
  isConflict,
  isForbidden,
  isGone,
  isInvalid,
  isNotFound,
  isNotLeader,
  isRetriable,
  isServerError,
  isTooManyRequests,
  isUnauthorized,
  NotLeaderError,
  type Status,
  type StatusCause,
  TerminalError,
} from "./client/errors.ts";
export {
  type EventInput,
  type EventRecorder,
  type EventRecorderOptions,
  type EventSink,
  KubeEventRecorder,
} from "./observe/events.ts";
export { Metrics, type ReconcileResult } from "./observe/metrics.ts";
export { MetricsAuthFilter, type MetricsAuthOptions, type MetricsAuthResult } from "./manager/metrics_auth.ts";
export {
  reviewAccess,
  type ReviewAttributes,
  type ReviewClient,
  type ReviewDecision,
  type ReviewedUser,
  reviewToken,
} from "./client/access_review.ts";
export { loadMetricsServingCert, type MetricsCertOptions } from "./manager/metrics_cert.ts";
export type { CertKeyPEM } from "./http/pki.ts";
export { type Clock, RealClock, VirtualClock } from "./clock.ts";
export {
  apiVersionOf,
  type Condition,
  CoreTypes,
  type KubeList,
  type KubeObject,
  type ListMeta,
  objectKey,
  type ObjectMeta,
  type OwnerReference,
  type ResourceType,
  splitKey,
  type WatchEvent,
  type WatchEventType,
} from "./types.ts";
// Typed built-ins (runtime/builtin_types.ts: Pod, Secret, Lease, … over client-node's models) are imported from that
// module directly: re-exported here, `deno doc --lint` would have to document client-node's whole model tree.
export { nestedField, nestedRecord, nestedString } from "./unstructured.ts";
export {
  addFinalizer,
  AlreadyOwnedError,
  type ConditionInput,
  type FinalizerChange,
  findCondition,
  getControllerOf,
  hasControllerReference,
  hasFinalizer,
  removeFinalizer,
  setCondition,
  setControllerReference,
} from "./client/apply.ts";
export {
  configureLogging,
  ensureDefaultLogging,
  kubeopLogger,
  type Logger,
  type LoggingOptions,
  type LogLevel,
  redact,
} from "./observe/log.ts";
export {
  defaultControllerRateLimiter,
  type ExponentialBackoffOptions,
  ExponentialBackoffRateLimiter,
  maxOf,
  type RateLimiter,
  type TokenBucketOptions,
  TokenBucketRateLimiter,
} from "./queue/rate_limiter.ts";
export { Informer, type InformerMetrics, type WaitOptions } from "./cache/cache.ts";
export type { LeaderElectionDurations } from "./leader/leader.ts";
export type { WatchHealth, WatchLogger, WatchMetrics, WatchScope, WatchSink } from "./watch/watch_runner.ts";
export type { WriteLagReport } from "./watch/write_lag.ts";
export {
  kubeLeaseLock,
  type LeaseClient,
  type LeaseLock,
  type LeaseObject,
  type LeaseRecord,
  type LeaseSpec,
} from "./leader/lease_lock.ts";
export type { CheckResult, ProbeReport } from "./manager/probes.ts";
export { type BearerConfig, BearerCredentials, CredentialError } from "./client/credentials.ts";
export type {
  CounterMetric,
  GaugeMetric,
  HistogramMetric,
  InFlightProbe,
  MetricLabels,
  QueueMetricsHooks,
} from "./observe/metrics.ts";
export type { LogProperties, LogRecord, Sink } from "./observe/log.ts";
export type { Store } from "./cache/cache.ts";
export type { IndexFunc } from "./cache/store.ts";
export type { RelistCause, StreamState, WatchMemory, WatchState } from "./watch/watch_state.ts";
export {
  patchStatusIfChanged,
  type StatusChangeOptions,
  statusChanges,
  type StatusPatcher,
} from "./controller/status_patch.ts";
export {
  ConditionsSchema,
  crdFromSchema,
  crdFromSchemas,
  type CustomResourceSchema,
  customResourceType,
  type PrinterColumn,
  READY_COLUMN,
  type StructuralSchema,
  structuralSchema,
  type ValidationRule,
} from "./crd_schema.ts";
export { deleteIgnoringNotFound, type Deleter } from "./client/delete_ignoring_not_found.ts";
export {
  CHILD_WRITE_REJECTED,
  type ChildWrite,
  type ChildWriteRejection,
  childWriteRejection,
  isUnfixableWriteError,
  rejectChildWrite,
  type RejectionContext,
  stalledCondition,
} from "./controller/child_write_failure.ts";
export { type ManagerSharding, shardingPlugin } from "./shard/manager_shards.ts";
export { shardAdmission } from "./shard/shard_admission.ts";
export { DEFAULT_SHARD_BUCKETS, ShardRing, type ShardRingMetrics, type ShardRingOptions } from "./shard/shard_ring.ts";
export { type ShardAdmission, ShardGate, type ShardTicket } from "./shard/shard_gate.ts";
export {
  bucketLeaseName,
  kubeLeaseDirectory,
  type LeaseDirectory,
  memberLeaseName,
  MemoryLeaseDirectory,
  type NamedLease,
  SHARD_RING_LABEL,
  type ShardLeaseClient,
} from "./shard/shard_leases.ts";
export type { ShardField, ShardRange, ShardSelector } from "./apimachinery/shard_selector.ts";
export type { ShardMode } from "./cache/cache.ts";
export { type ShardMetrics, shardMetrics } from "./shard/shard_metrics.ts";
// Admission and conversion webhooks (runtime/webhook/): the builder, the server, certificates and manifests.
export {
  AdmissionDenied,
  type AdmissionInput,
  allowed,
  denied,
  type MutatingHandler,
  type ReviewAnswer,
  type ValidatingHandler,
  type ValidationVerdict,
} from "./webhook/admission.ts";
export {
  ConversionError,
  type ConvertibleObject,
  convertObject,
  type HubAndSpokes,
  type Spoke,
} from "./webhook/conversion.ts";
export {
  type AdmissionRegistration,
  type AdmissionWebhookInfo,
  CONVERSION_PATH,
  mutatePath,
  type RegisteredWebhook,
  validatePath,
  Webhook,
  webhookRoutes,
} from "./webhook/webhook.ts";
export {
  type ServingCertSource,
  type WebhookRoute,
  WebhookServer,
  type WebhookServerOptions,
} from "./webhook/server.ts";
export { createWebhookServer, type WebhookSetupOptions } from "./webhook/setup.ts";
export { SelfManagedCerts, type SelfManagedCertsOptions } from "./webhook/self_managed_certs.ts";
export { type CertDirOptions, CertDirSource } from "./webhook/cert_dir.ts";
export { type CaBundleTargets, encodeCaBundle, injectCaBundle } from "./webhook/ca_bundle_injector.ts";
export {
  type LoopbackWebhookOptions,
  type LoopbackWebhooks,
  registerWebhooks,
  startLoopbackWebhooks,
} from "./webhook/loopback.ts";
export {
  caBundleTargets,
  convertingCrdNames,
  crdConversion,
  WEBHOOK_DEFAULTS,
  webhookConfigurations,
  type WebhookServiceRef,
} from "./webhook/manifests.ts";
export type {
  AdmissionOperation,
  AdmissionRequest,
  AdmissionResponse,
  AdmissionReview,
  AdmissionUserInfo,
  ConversionRequest,
  ConversionResponse,
  ConversionReview,
  GroupVersionKind,
  GroupVersionResource,
} from "./webhook/review_types.ts";
export type { ConnectionDeadlines } from "./http/http_deadlines.ts";
// Command-line flags (runtime/flags/): the parser kubeop's CLI uses, and the manager flags of an operator's `run`.
export {
  enumFlag,
  type FlagSpec,
  type FlagValues,
  intFlag,
  listFlag,
  LOG_LEVELS,
  logLevelFlag,
  parseFlags,
  stringFlag,
  UsageError,
} from "./flags/parse_flags.ts";
export {
  MANAGER_FLAGS,
  type ManagerFlagDefaults,
  type ManagerFlags,
  managerFlagsUsage,
  type ManagerOptionsFromFlags,
  managerOptionsFromFlags,
  parseManagerFlags,
} from "./flags/manager_flags.ts";
// What an operator project's manifests and dev environment are generated from (`kubeop init` scaffolds use them).
export { installCrds, type InstallCrdsOptions } from "./crd_install.ts";
export {
  clusterRoleRules,
  LEADER_ELECTION_RBAC,
  METRICS_AUTH_RBAC,
  type OperatorIdentity,
  type PolicyRule,
  rbacManifests,
  type RbacRule,
  READ,
  RUNTIME_RBAC,
} from "./rbac.ts";
