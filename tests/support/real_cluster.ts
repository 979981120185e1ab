/**
 * The real-cluster tier's control plane: testing/envtest/real_control_plane.ts under the names the tier's tests use.
 * @module
 */
export {
  DEFAULT_K8S_VERSION,
  type RealControlPlane as RealCluster,
  realControlPlaneBinDir as realClusterBinDir,
  startRealControlPlane as startRealCluster,
} from "../../testing/envtest/real_control_plane.ts";
