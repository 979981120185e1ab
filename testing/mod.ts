/**
 * The fake Kubernetes API server, importable by tests: {@link startFakeApiServer} and its types, and
 * {@link FakeCluster}, the same object semantics without HTTP for unit tests of reconcile functions, and
 * {@link startRealControlPlane}, an envtest-style etcd + kube-apiserver + kube-controller-manager for tests that want
 * the real server.
 * @module
 */
export type {
  Clock,
  KubeList,
  KubeObject,
  ListMeta,
  ObjectMeta,
  OwnerReference,
  ResourceType,
} from "../runtime/mod.ts";
export { type FakeApiServer, type FakeApiServerOptions, startFakeApiServer } from "./apiserver/server.ts";
export {
  DEFAULT_FEATURE_GATES,
  type FeatureGateName,
  type FeatureGates,
  parseFeatureGates,
} from "./apiserver/feature_gates.ts";
export type { ConnectionDeadlines } from "../runtime/http/http_deadlines.ts";
export type { DeleteOptions, FakeStore, ListOptions, ResourceRef, WriteOptions } from "./apiserver/commit_path.ts";
export type {
  AdmissionChain,
  AdmissionContext,
  AdmissionHook,
  DeleteAdmissionContext,
  DeleteAdmissionHook,
} from "./apiserver/admission.ts";
export type {
  ResourceStrategy,
  StatusWritableMeta,
  StorageConversion,
  StrategyContext,
  StrategyRegistry,
  WrittenSubresource,
} from "./apiserver/strategy.ts";
export type { UserInfo } from "./apiserver/user_info.ts";
export type { AccessDecider, FaultHooks, InjectedFault, ObservedRequest, WatchFilter } from "./apiserver/faults.ts";
export type { AggregatedTarget } from "./apiserver/http_router.ts";
export type { OpenApiSchema, PrintColumn, ResourceDef } from "./apiserver/resource_def.ts";
export { BUILTIN_RESOURCES } from "./apiserver/builtin_resources.ts";
export { eventually, type EventuallyOptions, EventuallyTimeoutError, type NotYet } from "./eventually.ts";
export {
  type ContainerOutcome,
  FakeKubelet,
  type FakeKubeletOptions,
  interpretCommand,
  type Json as ContainerJson,
} from "./apiserver/kubelet.ts";
export { FakeCluster, type FakeClusterOptions, type RecordedEvent } from "./unit/fake_cluster.ts";
export { FakeControllerClient, type FakeControllerClientOptions, type RecordedCall } from "./unit/fake_client.ts";
export { FakeInformers } from "./unit/fake_informers.ts";
export { type ReviewRequest, reviewThroughRoute } from "./apiserver/admission_review.ts";
export {
  DEFAULT_K8S_VERSION,
  type RealControlPlane,
  realControlPlaneBinDir,
  type RealControlPlaneOptions,
  type RestartOptions,
  startRealControlPlane,
} from "./envtest/real_control_plane.ts";
export type { Unstructured } from "./apiserver/unstructured.ts";
export {
  DEV_KUBECONFIG,
  devMain,
  type DevProject,
  type DevProjectEnvironment,
  type DevProjectOptions,
  startDevApiServer,
  startDevProject,
} from "./dev_project.ts";
