/**
 * Column descriptions of kube-apiserver v1.37's table printers (recorded by testdata/capture_real.ts), so
 * `columnDefinitions` are byte-identical to a real server's. Keyed by printer (`group/Kind`), then column name.
 * @module
 */

/** Descriptions by printer and column. */
export const COLUMN_DESCRIPTIONS: Record<string, Record<string, string>> = {
  "/ConfigMap": {
    "Data":
      "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.",
  },
  "/Secret": {
    "Type":
      "Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types",
    "Data":
      "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4",
  },
  "/Service": {
    "Type":
      'type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and LoadBalancer. "ClusterIP" allocates a cluster-internal IP address for load-balancing to endpoints. Endpoints are determined by the selector or if that is not specified, by manual construction of an Endpoints object or EndpointSlice objects. If clusterIP is "None", no virtual IP is allocated and the endpoints are published as a set of endpoints rather than a virtual IP. "NodePort" builds on ClusterIP and allocates a port on every node which routes to the same endpoints as the clusterIP. "LoadBalancer" builds on NodePort and creates an external load-balancer (if supported in the current cloud) which routes to the same endpoints as the clusterIP. "ExternalName" aliases this service to the specified externalName. Several other fields do not apply to ExternalName services. More info: https://kubernetes.io/docs/concepts/services-networking/service/#publishing-services-service-types',
    "Cluster-IP":
      'clusterIP is the IP address of the service and is usually assigned randomly. If an address is specified manually, is in-range (as per system configuration), and is not in use, it will be allocated to the service; otherwise creation of the service will fail. This field may not be changed through updates unless the type field is also being changed to ExternalName (which requires this field to be blank) or the type field is being changed from ExternalName (in which case this field may optionally be specified, as describe above).  Valid values are "None", empty string (""), or a valid IP address. Setting this to "None" makes a "headless service" (no virtual IP), which is useful when direct endpoint connections are preferred and proxying is not required.  Only applies to types ClusterIP, NodePort, and LoadBalancer. If this field is specified when creating a Service of type ExternalName, creation will fail. This field will be wiped when updating a Service to type ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies',
    "External-IP":
      "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.  These IPs are not managed by Kubernetes.  The user is responsible for ensuring that traffic arrives at a node with this IP.  A common example is external load-balancers that are not part of the Kubernetes system.",
    "Port(s)":
      "The list of ports that are exposed by this service. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies",
    "Selector":
      "Route service traffic to pods with label keys and values matching this selector. If empty or not present, the service is assumed to have an external process managing its endpoints, which Kubernetes will not modify. Only applies to types ClusterIP, NodePort, and LoadBalancer. Ignored if type is ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/",
  },
  "/Pod": {
    "Ready": "The aggregate readiness state of this pod for accepting traffic.",
    "Status": "The aggregate status of the containers in this pod.",
    "Restarts":
      "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.",
    "IP": "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.",
    "Node":
      "NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for scheduling by the scheduler defined in schedulerName. Once this field is set, the kubelet for this node becomes responsible for the lifecycle of this pod. This field should not be used to express a desire for the pod to be scheduled on a specific node. https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename",
    "Nominated Node":
      "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods. This field does not guarantee that the pod will be scheduled on this node. Scheduler may decide to place the pod elsewhere if other nodes become available sooner. Scheduler may also decide to give the resources on this node to a higher priority pod that is created after preemption. As a result, this field may be different than PodSpec.nodeName when the pod is scheduled.",
    "Readiness Gates":
      'If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its containers are ready AND all conditions specified in the readiness gates have status equal to "True" More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates',
  },
  "coordination.k8s.io/Lease": {
    "Holder":
      "holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field.",
  },
  "apps/Deployment": {
    "Ready": "Number of the pod with ready state",
    "Up-to-date":
      "Total number of non-terminating pods targeted by this deployment that have the desired template spec.",
    "Available":
      "Total number of available non-terminating pods (ready for at least minReadySeconds) targeted by this deployment.",
    "Containers": "Names of each container in the template.",
    "Images": "Images referenced by each container in the template.",
    "Selector":
      "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment. It must match the pod template's labels.",
  },
  "/Event": {
    "Last Seen": "The time at which the most recent occurrence of this event was recorded.",
    "Type": "Type of this event (Normal, Warning), new types could be added in the future",
    "Reason":
      "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
    "Object": "The object that this event is about.",
    "Subobject":
      'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the object reference is to a container within a pod, this would take on a value like: "spec.containers{name}" (where "name" refers to the name of the container that triggered the event) or if no container name is specified "spec.containers[2]" (container with index 2 in this pod). This syntax is chosen only to have some well-defined way of referencing a part of an object.',
    "Source": "The component reporting this event. Should be a short machine understandable string.",
    "Message": "A human-readable description of the status of this operation.",
    "First Seen": "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)",
    "Count": "The number of times this event has occurred.",
  },
  "/Namespace": {
    "Status": "The status of the namespace",
  },
};
