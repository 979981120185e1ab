/**
 * The fake server's certificates: a cluster CA with a serving certificate for 127.0.0.1/localhost and an admin
 * client certificate (CN kubeop-dev, O system:masters) for the kubeconfig, and a front-proxy CA whose client
 * certificate the aggregation proxy presents to APIService backends (as kube-apiserver's
 * --proxy-client-cert-file). Published through kube-system/extension-apiserver-authentication.
 * @module
 */
import { type CertKeyPEM, createCA } from "../../runtime/http/pki.ts";

/** Every certificate the fake server uses. */
export interface ServerPki {
  caPEM: string;
  serving: CertKeyPEM;
  adminClient: CertKeyPEM;
  frontProxyCaPEM: string;
  frontProxyClient: CertKeyPEM;
}

/** Generates a fresh PKI (ECDSA P-256; a few milliseconds). */
export async function createServerPki(): Promise<ServerPki> {
  const [ca, frontProxy] = await Promise.all([
    createCA({ commonName: "kubeop-fake-ca" }),
    createCA({ commonName: "kubeop-fake-front-proxy-ca" }),
  ]);
  const [serving, adminClient, frontProxyClient] = await Promise.all([
    ca.issue({ commonName: "kube-apiserver", hosts: ["127.0.0.1", "localhost"], usage: "server" }),
    ca.issue({ commonName: "kubeop-dev", organizations: ["system:masters"], usage: "client" }),
    frontProxy.issue({ commonName: "front-proxy-client", usage: "client" }),
  ]);
  return { caPEM: ca.certPEM, serving, adminClient, frontProxyCaPEM: frontProxy.certPEM, frontProxyClient };
}

/** The data of kube-system/extension-apiserver-authentication (what aggregated servers read for delegated auth). */
export function extensionApiserverAuthentication(pki: ServerPki, clientCA?: string): Record<string, string> {
  return {
    "client-ca-file": [pki.caPEM, clientCA].filter(Boolean).join(""),
    "requestheader-client-ca-file": pki.frontProxyCaPEM,
    "requestheader-allowed-names": JSON.stringify(["front-proxy-client"]),
    "requestheader-username-headers": JSON.stringify(["X-Remote-User"]),
    "requestheader-group-headers": JSON.stringify(["X-Remote-Group"]),
    "requestheader-extra-headers-prefix": JSON.stringify(["X-Remote-Extra-"]),
  };
}
