/**
 * The fake Kubernetes API server, importable by tests: {@link startFakeApiServer} and its types.
 * @module
 */
export { type FakeApiServer, type FakeApiServerOptions, startFakeApiServer } from "./server.ts";
export type { DeleteOptions, FakeStore, ListOptions, ResourceRef, WriteOptions } from "./fake_store.ts";
export type { AdmissionChain, AdmissionContext, AdmissionHook } from "./admission.ts";
export type { ResourceStrategy, StorageConversion, StrategyContext } from "./strategy.ts";
export type { FaultHooks, InjectedFault, WatchFilter } from "./faults.ts";
export type { AggregatedTarget } from "./http_router.ts";
export type { ResourceDef } from "./resource_def.ts";
export { BUILTIN_RESOURCES } from "./builtin_resources.ts";
export { type ContainerOutcome, FakeKubelet, type FakeKubeletOptions, interpretCommand } from "./kubelet.ts";
export { seededRandom } from "./seeded_random.ts";
