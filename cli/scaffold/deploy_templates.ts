/**
 * deploy/ of a `kubeop init` project (the parts written once: the kustomization, namespace, Deployment with probes,
 * metrics Service, PodDisruptionBudget and NetworkPolicy), the Containerfile, .ci/run, .gitignore and README.md.
 * deploy/rbac/ and deploy/webhook/ are generated from the code by the project's manifests.ts.
 * @module
 */

/** The controller's two labels, each line indented by `spaces`. */
const labelLines = (name: string, spaces: number) =>
  [`app.kubernetes.io/name: ${name}`, "app.kubernetes.io/component: controller"].map((l) => " ".repeat(spaces) + l)
    .join("\n");

/** Every file of deploy/ the scaffold writes, by path. */
export function deployFiles(name: string): Record<string, string> {
  const ns = `${name}-system`;
  const meta = (kind: string) =>
    `metadata:\n  name: ${name}-controller${kind}\n  namespace: ${ns}\n  labels:\n${labelLines(name, 4)}`;
  const selector = `    matchLabels:\n${labelLines(name, 6)}`;
  return {
    "deploy/kustomization.yaml":
      `# The operator: \`kubectl apply -k deploy/\` installs the CRDs (../crds), the namespace, least-privilege RBAC
# (rbac/, generated from the controllers' RBAC lists), the webhooks (webhook/, generated; empty without webhooks) and
# the controller Deployment with its metrics Service, PodDisruptionBudget and NetworkPolicy.
# Set the image with \`kustomize edit set image ${name}=<registry>/${name}:<tag>\` (or edit \`images:\` below).
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - namespace.yaml
  - ../crds
  - rbac
  - webhook
  - operator/deployment.yaml
  - operator/metrics_service.yaml
  - operator/pod_disruption_budget.yaml
  - operator/network_policy.yaml
images:
  - name: ${name}
    newName: ${name}
    newTag: dev
`,
    "deploy/namespace.yaml": `apiVersion: v1
kind: Namespace
metadata:
  name: ${ns}
  labels:
    app.kubernetes.io/name: ${name}
`,
    "deploy/operator/deployment.yaml":
      `# The operator: \`main.ts run\` with leader election; two replicas give a warm standby.
apiVersion: apps/v1
kind: Deployment
${meta("")}
spec:
  replicas: 2
  selector:
${selector}
  template:
    metadata:
      labels:
${labelLines(name, 8)}
    spec:
      serviceAccountName: ${name}-controller
      terminationGracePeriodSeconds: 30
      securityContext:
        runAsNonRoot: true
        seccompProfile:
          type: RuntimeDefault
      containers:
        - name: manager
          image: ${name}:dev
          args:
            - run
            - --leader-elect
            - --metrics-bind-address=:8080
            - --health-probe-bind-address=:8081
            - --webhook-bind-address=:9443
            - --log-format=json
          ports:
            - name: metrics
              containerPort: 8080
            - name: probes
              containerPort: 8081
            - name: webhook-server
              containerPort: 9443
          livenessProbe:
            httpGet:
              path: /healthz
              port: probes
            initialDelaySeconds: 10
          readinessProbe:
            httpGet:
              path: /readyz
              port: probes
          resources:
            requests:
              cpu: 50m
              memory: 96Mi
            limits:
              memory: 512Mi
          securityContext:
            allowPrivilegeEscalation: false
            readOnlyRootFilesystem: true
            capabilities:
              drop: ["ALL"]
`,
    "deploy/operator/metrics_service.yaml":
      `# /metrics of the controller replicas, for a Prometheus scrape config or a ServiceMonitor.
apiVersion: v1
kind: Service
${meta("-metrics")}
spec:
  selector:
${labelLines(name, 4)}
  ports:
    - name: metrics
      port: 8080
      targetPort: metrics
      protocol: TCP
`,
    "deploy/operator/pod_disruption_budget.yaml":
      `# A drain takes at most one replica at a time: the standby takes the Lease over.
apiVersion: policy/v1
kind: PodDisruptionBudget
${meta("")}
spec:
  maxUnavailable: 1
  selector:
${selector}
`,
    "deploy/operator/network_policy.yaml":
      `# Ingress only on the metrics, probe and webhook ports; egress stays open (the API server's address differs per cluster).
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
${meta("")}
spec:
  podSelector:
${selector}
  policyTypes:
    - Ingress
  ingress:
    - ports:
        - port: metrics
          protocol: TCP
        - port: probes
          protocol: TCP
        - port: webhook-server
          protocol: TCP
`,
  };
}

/** Containerfile: one compiled executable in a distroless nonroot image. */
export function containerfile(name: string, denoVersion: string): string {
  return `# ${name}: one compiled executable in a distroless nonroot image.
#   podman build -t ${name}:dev -f Containerfile .
# The build context must hold everything deno.json imports: with @kubeop/kubeop from a local checkout
# (kubeop init --kubeop PATH), import it from its package instead, or copy the checkout into the context.
FROM docker.io/denoland/deno:debian-${denoVersion} AS builder
WORKDIR /src
COPY . .
RUN deno install && deno task compile

FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=builder /src/dist/operator /operator
USER 65532:65532
ENTRYPOINT ["/operator"]
CMD ["run"]
`;
}

/** .ci/run: what CI runs (format, lint, type check, tests including the manifests drift test). */
export function ciRun(): string {
  return `#!/usr/bin/env bash
# CI: format, lint, type check, then the tests (controller unit tests, the fake-API-server test, and the drift test
# that fails while crds/ or deploy/ differ from the code).
set -euo pipefail
cd "$(dirname "$0")/.."
deno fmt --check
deno lint
deno check main.ts manifests.ts
deno task test
`;
}

/** .gitignore. */
export function gitignore(): string {
  return "dist/\n.kubeop/\n";
}

/** README.md: the two commands first. */
export function readme(name: string, kind: string): string {
  return `# ${name}

A Kubernetes operator on kubeop, scaffolded by \`kubeop init\`.

\`\`\`sh
deno task dev    # the operator against an embedded API server; prints KUBECONFIG=… for kubectl
deno task test   # unit tests, a test against the fake API server, and the manifests drift test
\`\`\`

Then, in another terminal: \`export KUBECONFIG=…\` (the path \`deno task dev\` printed), then
\`kubectl apply -f deploy/samples/\` and \`kubectl get ${kind.toLowerCase()} -w\` until READY is True.

## Layout

- \`controllers/<kind>/schema.ts\`: the kind's spec and status (TypeBox); the CRD is generated from it
  (\`schema_<version>.ts\`: another version of the kind, \`conversion.ts\`: the conversion between them).
- \`controllers/<kind>/controller.ts\`: the reconcile, and \`RBAC\`, the API calls it makes.
- \`controllers/mod.ts\`: every kind (rewritten by \`kubeop create api\` / \`kubeop create webhook\`).
- \`main.ts\`: \`run\` (against a cluster) and \`dev\`; \`operator.ts\`: the operator's names.
- \`manifests.ts\`: writes crds/, deploy/rbac/ and deploy/webhook/ from the code (\`deno task manifests\`).
- \`deploy/\`: \`kubectl apply -k deploy/\` installs everything; \`deploy/samples/\` holds one object per kind.

## Tasks

| task | what |
| --- | --- |
| \`deno task dev\` | embedded fake API server + the controllers, for kubectl |
| \`deno task test\` | all tests |
| \`deno task manifests\` | regenerate crds/, deploy/rbac/, deploy/webhook/ (\`deno task crds\`: crds/ only) |
| \`deno task run\` | the controllers against the cluster of \`$KUBECONFIG\` |
| \`deno task bundle\` / \`compile\` | one JavaScript file / one executable in dist/ |

Add a kind: \`kubeop create api --group G --version V --kind K\`; its webhooks:
\`kubeop create webhook --kind K --validate --default\`. The same \`create api\` with another \`--version\` serves a second
version of a kind (the first stays the storage version); \`kubeop create webhook --kind K --convert\` then adds the
conversion between them (controllers/<kind>/conversion.ts). They leave every file you changed alone (and say so).
\`deno task run --help\` lists the flags of \`run\` (leader election, namespaces, sharding, metrics, probes, webhooks).
`;
}
