/** The kubeop release version, printed by `kubeop version` and sent in the User-Agent. */
export const KUBEOP_VERSION = "0.1.0";
